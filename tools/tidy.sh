#!/bin/sh
# tidy.sh: go mod tidy every module of the repository.
#
# The modules require each other at released versions (say
# github.com/semacat/sem v0.1.0) and go.work joins them for local work, but
# go mod tidy ignores go.work. So each module is tidied with temporary
# replace directives that point every semacat module at its folder here, and
# the replaces are dropped again afterwards: the go.mod files that get
# committed never carry one.
set -eu
cd "$(dirname "$0")/.."
top=$(pwd)
mods=$(find . -name go.mod -not -path './tools/*' -not -path '*/testdata/*' | sort)
targets=$mods
[ $# -gt 0 ] && targets=$(for d in "$@"; do echo "./${d#./}/go.mod" | sed 's|/\./|/|; s|//|/|'; done)
for gomod in $targets; do
	dir=$(dirname "$gomod")
	replaces=""
	for other in $mods; do
		odir=$(dirname "$other")
		path=$(sed -n 's/^module //p' "$other")
		[ "$odir" = "$dir" ] && continue
		replaces="$replaces -replace=$path=$top/$odir"
	done
	(
		cd "$dir"
		go mod edit $replaces
		GOWORK=off GOFLAGS=-mod=mod go mod tidy || status=$?
		for r in $replaces; do
			go mod edit -dropreplace="$(echo "$r" | sed 's/^-replace=//; s/=.*//')"
		done
		exit ${status:-0}
	) || { echo "tidy.sh: go mod tidy failed in $dir" >&2; exit 1; }
done
