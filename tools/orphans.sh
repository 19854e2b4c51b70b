#!/bin/sh
# orphans.sh COMMAND [ARG...]: run COMMAND (a module's tests), then fail if
# a process it started outlived it, such as a redis-server or an etcd that a
# test binary left behind, adopted by init.
#
# COMMAND runs with SEMACAT_TESTRUN=<a tag unique to this run> in its
# environment, which every process it starts inherits. Once COMMAND exits,
# any live process whose environment carries the tag is a leak: the script
# names each, kills it, and exits 1. Processes of other runs on the same
# machine (other checkouts, other users' tests) carry other tags or none,
# so they neither fail the check nor get killed. A process that clears its
# environment escapes the check; the servers the tests start do not.
#
# The exit status is COMMAND's if it failed, else 1 if something leaked,
# else 0. A process given up to 3 seconds to end after COMMAND exits is not
# a leak: a test binary's guard ends the process groups it started just
# after the binary exits.
set -u
[ $# -gt 0 ] || { echo "usage: orphans.sh COMMAND [ARG...]" >&2; exit 2; }
tag="orphans-$$-$(date +%s%N)"
SEMACAT_TESTRUN=$tag "$@"
status=$?

# tagged prints the pids of the live processes whose environment has the tag.
tagged() {
	for env in /proc/[0-9]*/environ; do
		pid=${env#/proc/}; pid=${pid%/environ}
		[ "$pid" = "$$" ] && continue
		if { tr '\0' '\n' < "$env"; } 2>/dev/null | grep -qxF "SEMACAT_TESTRUN=$tag"; then
			echo "$pid"
		fi
	done
}

left=$(tagged)
tries=0
while [ -n "$left" ] && [ $tries -lt 30 ]; do
	sleep 0.1
	tries=$((tries + 1))
	left=$(tagged)
done
if [ -n "$left" ]; then
	echo "orphans.sh: processes started by \`$*\` outlived it (killed now):" >&2
	for pid in $left; do
		echo "  $(ps -o pid=,ppid=,args= -p "$pid" 2>/dev/null || echo "$pid (gone)")" >&2
		kill -s KILL "$pid" 2>/dev/null
	done
	[ "$status" -ne 0 ] || status=1
fi
exit "$status"
