#!/bin/sh
# release_test.sh: interrupts tools/release.sh at exact moments on a
# throwaway repository of the tree and checks that it undoes everything,
# and that a trailing -n stays a dry run. The interrupts come from a
# reference-transaction hook (as the tag is written, and again as the
# undo deletes one) and from a sed on PATH that writes go.work.new; the hook
# also plays a git that died holding a lock, and one that refuses to delete.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t
mkdir "$tmp/tree"
git -C "$top" ls-files -z --cached | (cd "$top" && xargs -0 tar -cf -) | tar -x -C "$tmp/tree"
cp "$here/release.sh" "$tmp/tree/tools/release.sh"
git -C "$tmp/tree" init -q && git -C "$tmp/tree" add -A && git -C "$tmp/tree" commit -qm tree

# fresh NAME: a clone of the tree in $r; state: what a release may change.
fresh() { r=$tmp/$1; git clone -q "$tmp/tree" "$r"; }
state() { git -C "$r" rev-parse HEAD; git -C "$r" tag -l; git -C "$r" status --porcelain --ignored; find "$r/.git" -name '*.lock'; }
# expect NAME WHAT: the release in $r changed nothing and said it undid it.
expect() {
	if [ "$(state)" != "$before" ] || ! grep -q "the repository is as it was" "$tmp/$1.out"; then
		echo "FAIL $1: $2 left:"; state | sed 's/^/    /'; sed 's/^/    out: /' "$tmp/$1.out"; fails=$((fails + 1))
	fi
}

# A TERM as the etcdsem tag is written, while git tag runs; with SECOND, another
# as the undo deletes the first tag.
hook() {
	cat >"$r/.git/hooks/reference-transaction" <<'SH'
#!/bin/sh
in=$(cat)
[ "$1" = committed ] || exit 0
rel=$(ps -o ppid= -p $PPID | tr -d ' ')
case "$in" in
*" 0000000000000000000000000000000000000000 refs/tags/"*)
	[ -z "$SECOND" ] || [ -e "$GIT_DIR/sent2" ] || { touch "$GIT_DIR/sent2"; kill -TERM "$rel"; } ;;
*" refs/tags/etcdsem/"*) kill -TERM "$rel" ;;
esac
SH
	chmod +x "$r/.git/hooks/reference-transaction"
}
for second in "" 1; do
	fresh "tag$second"; hook; before=$(state)
	SECOND=$second sh "$r/tools/release.sh" v0.2.0 >"$tmp/tag$second.out" 2>&1 || true
	expect "tag$second" "a TERM while tagging${second:+, and one in the undo}"
done

# A git killed while it held a tag's lock leaves the lock (here made by the
# hook), which the undo removes.
fresh stale; hook; before=$(state)
sed -i 's|^\*" refs/tags/etcdsem/"\*) kill|*" refs/tags/etcdsem/"*) mkdir -p "$GIT_DIR/refs/tags/redissem"; touch "$GIT_DIR/refs/tags/redissem/v0.2.0.lock"; kill|' "$r/.git/hooks/reference-transaction"
grep -q 'v0.2.0.lock' "$r/.git/hooks/reference-transaction"
SECOND="" sh "$r/tools/release.sh" v0.2.0 >"$tmp/stale.out" 2>&1 || true
expect stale "a TERM while tagging, with a stale lock of a tag"

# An undo that cannot delete a tag says so, and names it.
fresh refuse; hook; before=$(state)
cat >"$r/.git/hooks/reference-transaction" <<'SH'
#!/bin/sh
in=$(cat)
case "$1 $in" in
"prepared "*" 0000000000000000000000000000000000000000 refs/tags/"*) echo "refusing to delete" >&2; exit 1 ;;
"committed "*" refs/tags/etcdsem/"*) kill -TERM "$(ps -o ppid= -p $PPID | tr -d ' ')" ;;
esac
SH
sh "$r/tools/release.sh" v0.2.0 >"$tmp/refuse.out" 2>&1 || true
if grep -q "as it was" "$tmp/refuse.out" || ! grep -q "undoing it failed too; left: tag v0.2.0; tag etcdsem/v0.2.0;" "$tmp/refuse.out"; then
	echo "FAIL refuse: an undo that could not delete a tag did not name it:"; sed 's/^/    out: /' "$tmp/refuse.out"; fails=$((fails + 1))
fi

fresh gowork; before=$(state)
mkdir "$tmp/bin"
printf '#!/bin/sh\ncase "$(readlink /proc/$$/fd/1)" in *go.work.new) kill -TERM $PPID ;; esac\nexec %s "$@"\n' "$(command -v sed)" >"$tmp/bin/sed"
chmod +x "$tmp/bin/sed"
PATH="$tmp/bin:$PATH" sh "$r/tools/release.sh" v0.2.0 >"$tmp/gowork.out" 2>&1 || true
expect gowork "a TERM while go.work.new is written"

fresh lock; before=$(state)
touch "$r/.git/refs/tags/redissem/v0.2.0.lock" 2>/dev/null || { mkdir -p "$r/.git/refs/tags/redissem"; touch "$r/.git/refs/tags/redissem/v0.2.0.lock"; }
before=$(state)
if sh "$r/tools/release.sh" v0.2.0 >"$tmp/lock.out" 2>&1 || ! grep -q "v0.2.0.lock exists" "$tmp/lock.out" || [ "$(state)" != "$before" ]; then
	echo "FAIL lock: a lock file there before the release did not stop it:"; sed 's/^/    out: /' "$tmp/lock.out"; fails=$((fails + 1))
fi

fresh dry; before=$(state)
sh "$r/tools/release.sh" v0.2.0 -n >"$tmp/dry.out" 2>&1 || true
if [ "$(state)" != "$before" ] || ! grep -q "would then tag" "$tmp/dry.out"; then
	echo "FAIL dry: release.sh v0.2.0 -n was not a dry run:"; sed 's/^/    out: /' "$tmp/dry.out"; fails=$((fails + 1))
fi
if sh "$r/tools/release.sh" -n v0.2.0 extra >"$tmp/extra.out" 2>&1 || ! grep -q usage "$tmp/extra.out"; then
	echo "FAIL extra: an extra argument was not refused with the usage"; fails=$((fails + 1))
fi

[ "$fails" -eq 0 ] || { echo "release_test: $fails failed"; exit 1; }
echo "release_test: ok"
