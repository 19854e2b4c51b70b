#!/bin/sh
# release.sh VERSION: tag a release of every published module.
#
# The published modules are the root (github.com/semacat/sem), etcdsem,
# redissem and benchmarks. The nested ones require the root, so the order
# matters: the root is tagged VERSION first; then every module's requirement
# on a semacat module (and go.work's matching replace lines) moves to
# VERSION in one commit; then the nested modules are tagged on that commit
# as etcdsem/VERSION, redissem/VERSION and benchmarks/VERSION, the tags the
# go command looks for. Nothing is pushed: the script ends by printing the
# push command. The tree must be clean. tools/releasecheck.sh runs this
# script on a throwaway clone to prove that the result installs.
set -eu
version=${1:-}
case "$version" in
v[0-9]*.[0-9]*.[0-9]*) ;;
*) echo "usage: tools/release.sh vMAJOR.MINOR.PATCH (for instance v0.2.0)" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/.."
published="etcdsem redissem benchmarks"
if [ -n "$(git status --porcelain)" ]; then
	echo "release.sh: the tree has uncommitted changes; commit or stash them first" >&2
	exit 1
fi
for tag in "$version" $(for m in $published; do echo "$m/$version"; done); do
	if git rev-parse -q --verify "refs/tags/$tag" >/dev/null; then
		echo "release.sh: tag $tag exists already" >&2
		exit 1
	fi
done

git tag -a "$version" -m "github.com/semacat/sem $version"

# Every requirement on a semacat module, in every module but tools, and
# go.work's versioned replace lines, move to the new version.
for gomod in $(find . -name go.mod -not -path './tools/*' -not -path '*/testdata/*'); do
	for path in $(sed -n 's/^[[:space:]]*\(github\.com\/semacat\/sem[^[:space:]]*\) v[^[:space:]]*.*/\1/p' "$gomod" | sort -u); do
		go mod edit -require="$path@$version" "$gomod"
	done
done
sed -i.bak "s#^\(\t*github\.com/semacat/sem[^[:space:]]*\) v[^[:space:]]* =>#\1 $version =>#" go.work && rm go.work.bak
git commit -q -am "release $version: the modules require each other at $version"
for m in $published; do
	git tag -a "$m/$version" -m "github.com/semacat/sem/$m $version"
done
echo "release.sh: tagged $version and $(for m in $published; do printf '%s ' "$m/$version"; done)"
echo "release.sh: publish with: git push origin HEAD $version $(for m in $published; do printf '%s ' "$m/$version"; done)"
