#!/usr/bin/env bash
# releasecheck.sh: prove that a release of this tree installs for a user.
#
# It copies the tree (committed and uncommitted files git tracks or would
# track) into a throwaway repository, releases it there with
# tools/release.sh, builds the module zips of the tags as the module proxy
# would (tools/modproxy), and serves them from a file-system GOPROXY. Then,
# from fresh consumer modules with no replace directive and no go.work, it
# installs each published module on its own, builds a program against it,
# runs the published packages' tests and examples from the module cache,
# runs semabench by path, races a semaphore of the consumer's own through
# benchmarks.Race, and prints how many modules each consumer's graph holds.
# An etcdsem user's graph must not hold the etcd server.
#
# RELEASECHECK_REV=REV checks a commit instead of the working tree (with
# today's release script), to show what an older layout did.
set -eu
cd "$(dirname "$0")/.."
top=$(pwd)
version=v0.999.0-releasecheck
tmp=$(mktemp -d "${TMPDIR:-/tmp}/releasecheck.XXXXXX")
cleanup() { chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
log=$tmp/log
fail() { echo "release check: FAIL: $*"; [ -s "$log" ] && tail -n 30 "$log" | sed 's/^/    /'; exit 1; }
step() { # step WHAT COMMAND...: run COMMAND, its output in $log
	what=$1; shift
	"$@" >"$log" 2>&1 || fail "$what"
}

# The tree, as a fresh repository with one commit.
mkdir "$tmp/repo"
if [ -n "${RELEASECHECK_REV:-}" ]; then
	git archive "$RELEASECHECK_REV" | tar -x -C "$tmp/repo"
	mkdir -p "$tmp/repo/tools" && cp tools/release.sh "$tmp/repo/tools/release.sh"
else
	git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
		[ -e "$f" ] && printf '%s\0' "$f"
	done | tar --null -T - -cf - | tar -x -C "$tmp/repo"
fi
gitq() { git -C "$tmp/repo" -c user.name=releasecheck -c user.email=releasecheck@localhost -c commit.gpgsign=false -c tag.gpgsign=false "$@"; }
step "git init" gitq init -q
step "git commit" gitq add -A
step "git commit" gitq commit -qm "the tree under check"
step "tools/release.sh $version" env GIT_AUTHOR_NAME=releasecheck GIT_AUTHOR_EMAIL=releasecheck@localhost \
	GIT_COMMITTER_NAME=releasecheck GIT_COMMITTER_EMAIL=releasecheck@localhost sh "$tmp/repo/tools/release.sh" "$version"

# The module proxy.
step "building modproxy" sh -c "cd '$top/tools' && GOWORK=off go build -o '$tmp/modproxy' ./modproxy"
step "building the module zips" "$tmp/modproxy" -repo "$tmp/repo" -out "$tmp/proxy" \
	"github.com/semacat/sem@$version=.@$version" \
	"github.com/semacat/sem/etcdsem@$version=etcdsem@etcdsem/$version" \
	"github.com/semacat/sem/redissem@$version=redissem@redissem/$version" \
	"github.com/semacat/sem/benchmarks@$version=benchmarks@benchmarks/$version"

# Each published zip holds only its own module's product: no more than
# the size stated here, and no import of another module's internal/
# packages (which the go command refuses only when a user builds).
zipsize() { # zipsize MODULE: the size in KiB of MODULE's zip
	wc -c <"$tmp/proxy/$1/@v/$version.zip" | awk '{printf "%d", $1 / 1024}'
}
zips=""
for m in .=400 etcdsem=200 redissem=200 benchmarks=250; do
	dir=${m%=*} limit=${m#*=}
	path=github.com/semacat/sem; [ "$dir" = . ] || path=$path/$dir
	kib=$(zipsize "$path")
	[ "$kib" -le "$limit" ] || fail "$path: the module zip is $kib KiB, over its stated $limit KiB: what grew does not belong in a published module"
	zips="$zips $dir=${kib}KiB"
	foreign=$(cd "$tmp/repo/$dir" && go list -f '{{join .Imports "\n"}}{{"\n"}}{{join .TestImports "\n"}}{{"\n"}}{{join .XTestImports "\n"}}' ./... |
		grep '^github.com/semacat/sem/.*internal' | grep -v "^$path/internal/\|^$path/[^ ]*/internal/" | sort -u || true)
	[ -z "$foreign" ] || fail "$path imports another module's internal packages: $foreign"
done
row zips "sizes within limits, no foreign internal/" "$zips"

# A user's environment: no workspace, our zips first, then every other
# module from the module cache this machine already has, then the network.
cache=$(go env GOMODCACHE)
export GOWORK=off GOFLAGS= GONOSUMDB=github.com/semacat/sem GOMODCACHE="$tmp/modcache"
export GOPROXY="file://$tmp/proxy,file://$cache/cache/download,$(go env GOPROXY)"
export ETCDSEM_TEST_ETCD="${ETCDSEM_TEST_ETCD:-}"

consumer() { # consumer NAME: a fresh module to work in
	mkdir -p "$tmp/$1" && cd "$tmp/$1" && go mod init "example.com/$1" >/dev/null 2>&1
}
modules() { go list -m all | wc -l | tr -d ' '; }
summary=""
row() { summary="$summary$(printf '  %-10s %-44s %s' "$1" "$2" "$3")
"; }

# A user of the core packages.
consumer core
cat >main.go <<'GO'
package main

import (
	"context"
	"fmt"

	"github.com/semacat/sem"
	"github.com/semacat/sem/weighted"
)

func main() {
	var s sem.Semaphore = weighted.New(2)
	if err := s.Acquire(context.Background(), 2); err != nil {
		panic(err)
	}
	s.Release(2)
	fmt.Println("acquired and released 2 permits")
}
GO
step "core: go get github.com/semacat/sem@$version" go get -t "github.com/semacat/sem/...@$version"
step "core: go run ." go run .
step "core: go test github.com/semacat/sem/..." go test -count=1 github.com/semacat/sem/...
core_tests=$(grep -c '^ok' "$log")
row core "installs, builds, $core_tests packages' tests pass" "$(modules) modules"

# clientuser MODULE IMPORT: a user of the published module MODULE
# (redissem, etcdsem), in a fresh consumer: a program that imports IMPORT,
# makes a client with the Go statements on stdin and opens a semaphore on
# it. MODULE installs with go get alone, the program builds, and MODULE's
# tests pass from the module cache.
clientuser() {
	client=$(cat)
	consumer "$1"
	cat >main.go <<GO
package main

import (
	$2

	"github.com/semacat/sem/$1"
)

func main() {
$client
	defer client.Close()
	s, err := $1.New(client, "jobs", 4)
	if err == nil {
		s.Close()
	}
}
GO
	step "$1: go get github.com/semacat/sem/$1@$version" go get -t "github.com/semacat/sem/$1@$version"
	step "$1: go mod tidy" go mod tidy
	step "$1: go build" go build -o /dev/null .
	step "$1: go test github.com/semacat/sem/$1" go test -count=1 "github.com/semacat/sem/$1"
}

# A user of redissem.
clientuser redissem '"github.com/redis/go-redis/v9"' <<'GO'
	client := redis.NewClient(&redis.Options{Addr: "localhost:6379"})
GO
row redissem "installs, builds, its tests pass" "$(modules) modules"

# A user of etcdsem.
clientuser etcdsem 'clientv3 "go.etcd.io/etcd/client/v3"' <<'GO'
	client, err := clientv3.New(clientv3.Config{Endpoints: []string{"localhost:2379"}})
	if err != nil {
		panic(err)
	}
GO
if go list -m all | grep -q '^go.etcd.io/etcd/server'; then
	fail "etcdsem: the etcd server is in an etcdsem user's module graph: $(go mod why -m go.etcd.io/etcd/server/v3 | tr '\n' ' ')"
fi
row etcdsem "installs, builds, its tests pass, no etcd server" "$(modules) modules"

# A performance engineer: semabench by path, and a race of their own.
consumer bench
step "benchmarks: go run .../semabench@$version" go run "github.com/semacat/sem/benchmarks/semabench@$version" \
	-out "$tmp/semabench" -rounds 1 -benchtime 2ms -bench '^Semaphore/uncontended/'
sed -n '/^$/,$p' "$log" | sed 's/^/    /' >"$tmp/semabench.txt"
cat >race_test.go <<'GO'
package race

import (
	"context"
	"testing"

	"github.com/semacat/sem"
	"github.com/semacat/sem/benchmarks"
)

// tokens is the consumer's own semaphore: one permit per request.
type tokens chan struct{}

func (t tokens) Acquire(ctx context.Context, _ int64) error {
	select {
	case t <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
func (t tokens) TryAcquire(int64) bool { select { case t <- struct{}{}: return true; default: return false } }
func (t tokens) Release(int64)         { <-t }

func BenchmarkRace(b *testing.B) {
	benchmarks.Race(b, benchmarks.Contender{Name: "tokens", New: func(n int64) sem.Semaphore { return make(tokens, n) }, UnitOnly: true})
}
GO
step "benchmarks: go get github.com/semacat/sem/benchmarks@$version" go get "github.com/semacat/sem/benchmarks@$version"
step "benchmarks: go mod tidy" go mod tidy
step "benchmarks: a race of the consumer's own semaphore" go test -run '^$' -bench 'Race/uncontended/size=1/impl=(tokens|xsync)$' -benchtime 100x .
cp "$log" "$tmp/race.txt"; grep -q "impl=tokens" "$tmp/race.txt" || fail "benchmarks: benchmarks.Race ran no benchmark of the consumer's semaphore"
row benchmarks "semabench runs by path; Race races yours" "$(modules) modules"

echo "release check: $version of every published module installs with go get alone, from a file-system module proxy:"
printf '%s' "$summary"
echo "  semabench, run by path from outside a clone:"
cat "$tmp/semabench.txt"
echo "  benchmarks.Race from a consumer's own benchmark:"
grep '^Benchmark' "$tmp/race.txt" | sed 's/^/    /'
