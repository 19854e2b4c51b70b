#!/bin/sh
# orphans.sh COMMAND [ARG...]: run COMMAND (a module's tests), then fail if
# a process it started outlived it, such as a redis-server or an etcd that a
# test binary left behind, adopted by init.
#
# COMMAND runs as the leader of a new session (setsid), which every process
# it starts inherits unless it makes a session of its own (a daemon does;
# the servers the tests start do not). Once COMMAND exits, any live process
# still in that session is a leak: the script names each, kills it, and
# exits 1. Processes of other runs on the same machine are in other
# sessions, so they neither fail the check nor get killed. (A mark in the
# environment would not do: redis-server overwrites its environment when
# it sets its process title.)
#
# The exit status is COMMAND's if it failed, else 1 if something leaked,
# else 0. A process that ends within 3 seconds of COMMAND is not a leak: a
# test binary's guard (lab/devserver) ends the process groups the binary
# started just after the binary exits. An interrupt (Ctrl-C) is passed on
# to COMMAND, which a new session takes out of the terminal's reach.
set -u
[ $# -gt 0 ] || { echo "usage: orphans.sh COMMAND [ARG...]" >&2; exit 2; }
# In the background, COMMAND does not lead a process group, so setsid runs
# it in this very process: its pid is the session's id.
setsid "$@" &
sid=$!
trap 'kill -s INT -- "-$sid" 2>/dev/null' INT TERM
status=0
wait "$sid" || status=$?
while kill -0 "$sid" 2>/dev/null; do # wait was interrupted by the trap
	wait "$sid" || status=$?
done

inSession() { ps -eo pid=,sid= | awk -v s="$sid" '$2 == s && $1 != s { print $1 }'; }

left=$(inSession)
tries=0
while [ -n "$left" ] && [ $tries -lt 30 ]; do
	sleep 0.1
	tries=$((tries + 1))
	left=$(inSession)
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
