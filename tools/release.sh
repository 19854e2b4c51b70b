#!/bin/sh
# release.sh [-n] VERSION: release every published module at VERSION.
#
# The published modules are the root (github.com/semacat/sem), etcdsem,
# redissem and benchmarks. The nested ones require the root, and the
# development modules (docs, lab) require them all, at the version of the
# last release; go.work's replace lines name that version too. A release:
#
#  1. checks that the tree is clean and that none of the tags exists;
#  2. moves every requirement on a semacat module, and go.work's replace
#     lines, to VERSION, and commits that, unless they are at VERSION
#     already (a first release, whose requirements name it in advance);
#  3. tags that commit VERSION (the root), etcdsem/VERSION,
#     redissem/VERSION and benchmarks/VERSION: the tags the go command
#     looks for.
#
# No tag exists until every other step has succeeded, and a failure at any
# step (or an interrupt) puts the repository back as it was: the commit of
# step 2 is undone, go.work.new is removed, and every tag of VERSION is
# deleted, the one being made when the interrupt came included (none
# existed at the start). The undo runs only once the shell's foreground git
# command has ended, so a lock file left then on a tag's ref is stale and is
# removed (one of the index, HEAD or the branch, which another git command
# may hold, is named instead); one there before the run makes it refuse to
# start.
# The undo ignores further interrupts and checks each step, naming what is
# left if one fails. Once every tag exists, interrupts are ignored until the
# success is printed. Nothing is pushed:
# the script ends by printing the push command. With -n it only says what
# it would do. tools/releasecheck.sh runs it on a throwaway copy of the tree.
set -eu
usage() {
	echo "usage: tools/release.sh [-n] vMAJOR.MINOR.PATCH (for instance v0.2.0; -n: say what it would do)" >&2
	exit 2
}
dry=""
version=""
for arg; do
	case "$arg" in
	-n) dry=1 ;;
	v[0-9]*.[0-9]*.[0-9]*) [ -z "$version" ] || usage; version=$arg ;;
	*) usage ;;
	esac
done
[ -n "$version" ] || usage
cd "$(dirname "$0")/.."
published="etcdsem redissem benchmarks"
tags="$version$(for m in $published; do printf ' %s' "$m/$version"; done)"
say() { echo "release.sh: $*"; }

if [ -n "$(git status --porcelain)" ]; then
	echo "release.sh: the tree has uncommitted changes; commit or stash them first" >&2
	exit 1
fi
for tag in $tags; do
	if git rev-parse -q --verify "refs/tags/$tag" >/dev/null; then
		echo "release.sh: tag $tag exists already: $version was released; pick the next version" >&2
		exit 1
	fi
done

# offversion prints each requirement on a semacat module that is not at
# VERSION yet, in a go.mod or in go.work's replace lines, as "FILE PATH OLD".
offversion() {
	for gomod in $(find . -name go.mod -not -path './tools/*' -not -path '*/testdata/*' | sort); do
		printed=$(go mod edit -print "$gomod") || { echo "release.sh: cannot read $gomod" >&2; return 1; }
		printf '%s\n' "$printed" |
			sed -n '/=>/!s#^[[:space:]]*\(require[[:space:]]\{1,\}\)\{0,1\}\(github\.com/semacat/sem[^[:space:]]*\)[[:space:]]\{1,\}\(v[^[:space:]]*\).*#\2 \3#p' |
			while read -r path old; do [ "$old" = "$version" ] || echo "$gomod $path $old"; done
	done
	sed -n 's#^[[:space:]]*\(github\.com/semacat/sem[^[:space:]]*\) \(v[^[:space:]]*\) =>.*#\1 \2#p' go.work |
		while read -r path old; do [ "$old" = "$version" ] || echo "go.work $path $old"; done
}
plan=$(offversion)

if [ -n "$dry" ]; then
	say "dry run of the release $version at $(git rev-parse --short HEAD) ($(git log -1 --format=%s | cut -c1-60))"
	if [ -z "$plan" ]; then
		say "every requirement on a semacat module is at $version already: no commit"
	else
		say "would move these requirements to $version and commit them:"
		printf '%s\n' "$plan" | sed 's/^\([^ ]*\) \([^ ]*\) \([^ ]*\)$/    \1: \2 \3 -> '"$version"'/'
	fi
	say "would then tag that commit: $tags"
	say "and print the push command: git push origin HEAD $tags"
	exit 0
fi

# taglocks prints the lock files of the tags' refs, which only this run
# writes; locks adds those of the index, HEAD and the branch, which another
# git command may hold.
taglocks() {
	for tag in $tags; do git rev-parse --git-path "refs/tags/$tag.lock"; done
}
locks() {
	for ref in HEAD index "$(git symbolic-ref -q HEAD || echo HEAD)"; do git rev-parse --git-path "$ref.lock"; done
	taglocks
}
for lock in $(locks); do
	if [ -e "$lock" ]; then
		echo "release.sh: $lock exists: another git command runs, or one died; remove it once none runs" >&2
		exit 1
	fi
done

# From here on a failure undoes everything done so far.
start=$(git rev-parse HEAD)
finished=""
undo() {
	[ -z "$finished" ] || return 0
	trap '' INT TERM HUP
	set +e
	left=""
	rm -f $(taglocks) go.work.new || left="$left lock files of tags or go.work.new;"
	for tag in $tags; do
		if git rev-parse -q --verify "refs/tags/$tag" >/dev/null; then
			git tag -d "$tag" >/dev/null || left="$left tag $tag;"
		fi
	done
	git reset -q --hard "$start" || left="$left HEAD at $(git rev-parse --short HEAD) instead of $(git rev-parse --short "$start"), or a changed tree;"
	for lock in $(locks); do
		[ ! -e "$lock" ] || left="$left $lock (remove it once no git command runs);"
	done
	if [ -z "$left" ]; then
		echo "release.sh: the release $version failed; the repository is as it was (no tag, no commit)" >&2
	else
		echo "release.sh: the release $version failed, and undoing it failed too; left:$left remove them by hand" >&2
	fi
}
trap undo EXIT
trap 'exit 1' INT TERM HUP

if [ -n "$plan" ]; then
	printf '%s\n' "$plan" | while read -r file path old; do
		if [ "$file" != go.work ]; then
			go mod edit -require="$path@$version" "$file"
		fi
	done
	sed "s#^\([[:space:]]*github\.com/semacat/sem[^[:space:]]*\) v[^[:space:]]* =>#\1 $version =>#" go.work >go.work.new
	mv go.work.new go.work
	git commit -q -am "release $version: the modules require each other at $version"
	say "committed the requirements on $version: $(git rev-parse --short HEAD)"
else
	say "every requirement on a semacat module is at $version already: no commit"
fi
left=$(offversion)
if [ -n "$left" ]; then
	echo "release.sh: these requirements did not move to $version:" >&2
	printf '%s\n' "$left" >&2
	exit 1
fi
for tag in $tags; do
	case "$tag" in
	"$version") what=github.com/semacat/sem ;;
	*) what=github.com/semacat/sem/${tag%/*} ;;
	esac
	git tag -a "$tag" -m "$what $version"
done
trap '' INT TERM HUP
finished=1
say "tagged $(git rev-parse --short HEAD): $tags"
say "publish with: git push origin HEAD $tags"
