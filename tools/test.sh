#!/bin/sh
# test.sh: what `make test` runs. For every module, go vet and the tests
# under the race detector in long mode (SEMACAT_LONG=1: the whole mutation
# tables and the long model runs), one line per package (gotestsum); and the
# release check. The jobs run side by side, JOBS at a time (default 3): most
# of the distributed modules' time is spent waiting on servers, leases and
# timeouts, not on the processor. Each job's output is printed whole, in
# order, once all have ended, so a failure shows the test's own output, not
# an interleaving; a line per job says when it ends. A module's tests run
# under tools/orphans.sh, which fails them when a process they started (a
# redis-server, an etcd) outlives the test binary. lab/limitsim is a job of
# its own: the limit simulator's whole comparison, without the race
# detector, under which it runs several times slower (lab's race job runs
# one small scenario of it). The longest jobs start first.
#
# Usage: tools/test.sh GOTESTSUM MODULE...
set -eu
cd "$(dirname "$0")/.."
top=$(pwd)
gotestsum=$1
shift

# job NAME LOG: run one module's vet and tests, or the release check, with
# its output in LOG, and leave LOG.failed behind on failure.
job() {
	start=$(date +%s)
	if [ "$1" = release-check ]; then
		bash tools/releasecheck.sh >"$2" 2>&1 || touch "$2.failed"
	elif [ "$1" = lab/limitsim ]; then
		# The simulator runs several times slower under the race detector,
		# so lab's race job runs one small scenario of it, and this job the
		# whole comparison against the committed results, without it.
		(cd lab && "$gotestsum" --format pkgname --hide-summary=skipped -- -count=1 ./limitsim) >"$2" 2>&1 ||
			touch "$2.failed"
	else
		(cd "$1" && go vet -race ./... &&
			sh "$top/tools/orphans.sh" "$gotestsum" --format pkgname --format-hide-empty-pkg --hide-summary=skipped -- -race -count=1 ./...) >"$2" 2>&1 ||
			touch "$2.failed"
	fi
	status=ok
	[ -e "$2.failed" ] && status=FAIL
	echo "   $1: $status in $(($(date +%s) - start))s"
}
# Long mode for every job, also one run by hand with --job.
export SEMACAT_LONG=1
# logof JOB: the log file of JOB in the folder $logs.
logof() { echo "$logs/$(echo "$1" | tr / -).log"; }
if [ "${1:-}" = --job ]; then
	logs=$3
	job "$2" "$(logof "$2")"
	exit 0
fi

logs=$(mktemp -d "${TMPDIR:-/tmp}/semacat-test.XXXXXX")
trap 'rm -rf "$logs"' EXIT
# lab first, beside redissem and etcdsem, whose tests mostly wait on their
# servers: lab's fault scenarios need their workers and servers to get the
# processor within a fraction of a lease, and beside the jobs that keep
# both cores busy (limitsim, the root's race tests, the release check's
# four users side by side) they lost leases and grants no fault explained.
# Then the longest jobs, so that none starts last and runs alone.
jobs=""
for j in lab redissem etcdsem lab/limitsim . release-check docs; do
	case " $* release-check " in *" ${j%/limitsim} "*) jobs="$jobs $j" ;; esac
done
jobs=${jobs# }
for m in "$@"; do
	case " $jobs " in *" $m "*) ;; *) jobs="$jobs $m" ;; esac
done
echo "== $(echo $jobs | wc -w) jobs, ${JOBS:-3} at a time: $jobs"
for j in $jobs; do echo "$j"; done |
	xargs -P "${JOBS:-3}" -I{} sh tools/test.sh "$gotestsum" --job {} "$logs"
failed=""
for j in $jobs; do
	echo "== $j"
	cat "$(logof "$j")"
	[ -e "$(logof "$j").failed" ] && failed="$failed $j"
done
if [ -n "$failed" ]; then
	echo "make test: FAIL in:$failed"
	exit 1
fi
echo "make test: ok, every module and the release check passed: $*"
