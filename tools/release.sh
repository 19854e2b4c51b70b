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
# step 2 is undone and the tags made so far are deleted. Nothing is pushed:
# the script ends by printing the push command. With -n it only says what
# it would do. tools/releasecheck.sh runs it on a throwaway copy of the tree.
set -eu
dry=""
if [ "${1:-}" = -n ]; then
	dry=1
	shift
fi
version=${1:-}
case "$version" in
v[0-9]*.[0-9]*.[0-9]*) ;;
*) echo "usage: tools/release.sh [-n] vMAJOR.MINOR.PATCH (for instance v0.2.0; -n: say what it would do)" >&2; exit 2 ;;
esac
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

# From here on a failure undoes everything done so far.
start=$(git rev-parse HEAD)
made=""
finished=""
undo() {
	[ -z "$finished" ] || return 0
	for tag in $made; do git tag -d "$tag" >/dev/null 2>&1 || true; done
	git reset -q --hard "$start"
	echo "release.sh: the release $version failed; the repository is as it was (no tag, no commit)" >&2
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
	made="$made $tag"
done
finished=1
say "tagged $(git rev-parse --short HEAD): $tags"
say "publish with: git push origin HEAD $tags"
