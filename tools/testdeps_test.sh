#!/bin/sh
# testdeps_test.sh: runs testdeps.sh on a simulated machine where the Redis
# programs and faketime are missing, with stand-ins for apt-get, id and sudo
# on PATH, and checks what it does. Nothing on the real machine is installed or removed.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

# machine makes the PATH directory of a simulated machine: the only
# programs testdeps.sh runs besides apt-get, id and sudo (which each case
# stands in), and no Redis.
machine() {
	mkdir -p "$tmp/$1/bin"
	for p in env true; do ln -s "/usr/bin/$p" "$tmp/$1/bin/$p"; done
}

# stub writes an executable stand-in.
stub() {
	printf '#!/bin/sh\n%s\n' "$2" >"$1"
	chmod +x "$1"
}

# expect NAME WANT_RC WANT_TEXT: runs testdeps.sh on machine NAME.
expect() {
	rc=0
	out=$(PATH="$tmp/$1/bin" "$here/testdeps.sh" 2>&1) || rc=$?
	if [ "$rc" -ne "$2" ] || { [ -n "$3" ] && ! printf '%s' "$out" | grep -qF -- "$3"; }; then
		echo "FAIL $1: exit $rc (want $2), output lacks \"$3\":"
		printf '%s\n' "$out" | sed 's/^/    /'
		fails=$((fails + 1))
	else
		echo "ok   $1"
	fi
}

# root, apt-get works: it updates once, then installs both packages.
machine root
stub "$tmp/root/bin/id" 'echo 0'
stub "$tmp/root/bin/apt-get" "echo \"\$*\" >>$tmp/root/apt.log
case \"\$*\" in *install*) for p in redis-server redis-sentinel faketime; do /bin/ln -sf /bin/true $tmp/root/bin/\$p; done ;; esac"
expect root 0 "installed: redis-server redis-sentinel faketime"
log=$(cat "$tmp/root/apt.log")
want="update -qq
install -y --no-install-recommends redis-server redis-sentinel faketime -qq"
[ "$log" = "$want" ] || { echo "FAIL root: apt-get calls were:"; echo "$log"; fails=$((fails + 1)); }

# Once installed, nothing more happens.
rm "$tmp/root/apt.log"
expect root 0 ""
[ ! -e "$tmp/root/apt.log" ] || { echo "FAIL root: apt-get ran though nothing was missing"; fails=$((fails + 1)); }

# A user with passwordless sudo: apt-get runs through it.
machine sudo
stub "$tmp/sudo/bin/id" 'echo 1000'
stub "$tmp/sudo/bin/sudo" "[ \"\$1\" = -n ] && shift; echo \"\$*\" >>$tmp/sudo/sudo.log; exec \"\$@\""
stub "$tmp/sudo/bin/apt-get" "case \"\$*\" in *install*) for p in redis-server redis-sentinel faketime; do /bin/ln -sf /bin/true $tmp/sudo/bin/\$p; done ;; esac"
expect sudo 0 "installed: redis-server redis-sentinel faketime"
[ "$(grep -c apt-get "$tmp/sudo/sudo.log")" -eq 2 ] || { echo "FAIL sudo: apt-get did not run through sudo"; fails=$((fails + 1)); }

# A user without sudo: stop with the one command to run.
machine user
stub "$tmp/user/bin/id" 'echo 1000'
stub "$tmp/user/bin/apt-get" "echo apt-get must not run; exit 1"
expect user 1 "sudo sh -c 'apt-get update && apt-get install -y --no-install-recommends redis-server redis-sentinel faketime'"

# Only the sentinel missing: only its package is installed.
machine sentinel
ln -s /bin/true "$tmp/sentinel/bin/redis-server"
ln -s /bin/true "$tmp/sentinel/bin/faketime"
stub "$tmp/sentinel/bin/id" 'echo 1000'
stub "$tmp/sentinel/bin/apt-get" "echo apt-get must not run; exit 1"
expect sentinel 1 "apt-get install -y --no-install-recommends redis-sentinel'"

# apt-get that installs nothing: a loud error, not a silent pass.
machine broken
stub "$tmp/broken/bin/id" 'echo 0'
stub "$tmp/broken/bin/apt-get" 'exit 0'
expect broken 1 "redis-server is still missing after installing redis-server"

# No apt-get at all: say what to install.
machine noapt
stub "$tmp/noapt/bin/id" 'echo 0'
expect noapt 1 "no apt-get here"

[ "$fails" -eq 0 ] || { echo "testdeps_test: $fails failed"; exit 1; }
echo "testdeps_test: ok"
