#!/bin/sh
# testdeps.sh: make sure what `make test` needs beyond Go is installed.
#
# redissem's tests start their own redis-server (and its fault tests a
# redis-sentinel, and its clock-lag test a redis-server under faketime,
# libfaketime's launcher). When a program is missing, this script installs the
# distribution packages that hold them, if it may: as root, or through
# passwordless sudo, on a machine with apt-get (Debian, Ubuntu). Otherwise it
# stops and prints the one command to run. It changes nothing when all are
# there, so `make test` runs it every time.
#
# Everything is found through PATH, so a test can stand in its own apt-get,
# id or sudo.
set -eu

# program:package pairs
needs="redis-server:redis-server redis-sentinel:redis-sentinel faketime:faketime"

missing=""
for pair in $needs; do
	command -v "${pair%%:*}" >/dev/null 2>&1 || missing="$missing ${pair#*:}"
done
[ -z "$missing" ] && exit 0

install="apt-get install -y --no-install-recommends$missing"
echo "testdeps: make test needs:$missing (not found on PATH)"
if ! command -v apt-get >/dev/null 2>&1; then
	echo "testdeps: no apt-get here; install the Redis server and sentinel, and faketime, with your package manager" >&2
	echo "testdeps: (macOS: brew install redis libfaketime), then run make test again" >&2
	exit 1
fi
if [ "$(id -u)" -eq 0 ]; then
	as_root=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
	as_root="sudo -n"
else
	echo "testdeps: installing needs root; run this once, then make test again:" >&2
	echo "  sudo sh -c 'apt-get update && $install'" >&2
	exit 1
fi
echo "testdeps: installing with apt-get (update once, then install)"
$as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
$as_root env DEBIAN_FRONTEND=noninteractive $install -qq >/dev/null
for pair in $needs; do
	command -v "${pair%%:*}" >/dev/null 2>&1 || {
		echo "testdeps: ${pair%%:*} is still missing after installing ${pair#*:}" >&2
		exit 1
	}
done
echo "testdeps: installed:$missing"
