# semacat: every command a contributor or CI needs. Only Go is required;
# tools run from tools/go.mod with `go tool`, so nothing is installed by hand.

GO      ?= go
# $(call TOOL,name) is the path of a tool of tools/go.mod, built into the
# build cache: go tool -modfile refuses workspace mode, so the tool is built
# outside the workspace, and then runs with the ordinary environment (a
# GOWORK=off of its own would reach the go commands gotestsum and
# staticcheck run, taking the nested modules out of the workspace).
TOOL = $(shell GOWORK=off $(GO) tool -modfile=$(CURDIR)/tools/go.mod -n $(1))
# Every Go module in the tree but the tools module. Four are published: the
# root (the contract, the strategies, semtest), etcdsem, redissem and
# benchmarks; the others (docs and lab) are development code
# that is never released. go.work joins them for local work.
MODULES := $(patsubst ./%,%,$(patsubst %/go.mod,%,$(shell find . -name go.mod -not -path './tools/*' -not -path '*/testdata/*' | sort)))

# The etcd server that etcdsem's tests run as separate processes, built from
# the etcd version the modules use (lab/devserver/cmd/etcd).
ETCD_BIN := $(CURDIR)/.bin/etcd
export ETCDSEM_TEST_ETCD := $(ETCD_BIN)

.PHONY: all test check testdeps etcd vet cover lint bench bench-long bench-reference bench-compare bench-render timelines faults release release-check tidy

all: test

## test: go vet and the race-enabled tests of every module in long mode
## (SEMACAT_LONG=1), one line per package (gotestsum), and the release
## check, side by side (tools/test.sh; JOBS=N sets how many at a time); a
## failure names the test and shows its output. vet runs with -race so that
## it type-checks against the same compiled dependencies the race tests use:
## a plain vet would compile every dependency (etcd, gRPC, ...) a second time
## on a fresh machine.
test: testdeps etcd
	@sh tools/test.sh "$(call TOOL,gotestsum)" $(MODULES)

## check: the inner loop, in seconds: go vet and the root module's tests
## without the race detector and without long modes
check:
	$(GO) vet ./...
	$(GO) test -count=1 ./...

## release-check: release a throwaway copy of the tree twice (v0.1.0, then
## v0.2.0 after a change) as make release would, check each published zip's
## license, serve the zips from a file-system GOPROXY, and install, build and
## test the published modules from fresh consumer modules (make test runs it)
release-check: testdeps etcd
	bash tools/releasecheck.sh

## release: release VERSION (make release VERSION=v0.2.0): every requirement
## on a semacat module moves to VERSION in a commit (none when they are there
## already), then the root, etcdsem/, redissem/ and benchmarks/ are tagged on
## it; a failure leaves no tag and no commit; it prints the push command.
## DRYRUN=1 only says what it would do (tools/release.sh)
release:
	@test -n "$(VERSION)" || { echo "usage: make release VERSION=vX.Y.Z [DRYRUN=1]"; exit 2; }
	sh tools/release.sh $(if $(DRYRUN),-n) $(VERSION)

## tidy: go mod tidy every module, with the other semacat modules taken from
## this tree (tools/tidy.sh)
tidy:
	sh tools/tidy.sh

## testdeps: install what the tests need beyond Go (redis-server,
## redis-sentinel) when missing and allowed, else say the command to run;
## then check that script itself on simulated machines
testdeps:
	@sh tools/testdeps.sh
	@sh tools/testdeps_test.sh >/dev/null || sh tools/testdeps_test.sh

## etcd: build the etcd server binary the tests run into .bin/etcd
etcd:
	@cd lab/devserver && $(GO) build -o $(ETCD_BIN) ./cmd/etcd

## cover: tests with coverage of the root module, summary per function
cover:
	$(GO) test -count=1 -coverprofile=coverage.out ./...
	$(GO) tool cover -func=coverage.out | tail -n 1

## lint: staticcheck over every module
lint:
	@set -e; for m in $(MODULES); do \
		echo "== $$m: staticcheck"; \
		(cd $$m && $(call TOOL,staticcheck) ./...); \
	done

## faults: the fault-injection scenarios of etcdsem and redissem in long
## mode (5 workers, 25s and four faults per scenario, four scenarios at a
## time), ending with the table: scenario, operations, faults, violations,
## permits-back p50 and p99 (see lab/faults/doc.go)
faults: testdeps etcd
	cd lab/faults && SEMACAT_FAULTS=long $(GO) test -count=1 -timeout 20m

## bench: the head-to-head run of every strategy against the references,
## each contended scenario in its steady state (see benchmarks/steady.go),
## 6 rounds of 15ms each (under 5 minutes on 2 cores): a progress line per
## scenario with the time left, a summary table, and
## benchmarks/results/latest/{results.txt,results.md,*.svg}. IMPL=regexp
## races only the strategies it matches, and the references
## (make bench IMPL='^weighted$')
SEMABENCH := cd benchmarks && $(GO) run ./semabench
REFERENCE := $(CURDIR)/docs/results/reference
FIGURES   := $(GO) run ./lab/figures -root $(CURDIR) -blocks $(REFERENCE)/blocks.md
bench:
	$(SEMABENCH) -command "make bench" $(if $(IMPL),-impl '$(IMPL)') -benchtime 15ms -out $(CURDIR)/benchmarks/results/latest

## bench-long: the thorough run: more goroutine counts, 10 rounds, 100ms each
bench-long:
	$(SEMABENCH) -command "make bench-long" $(if $(IMPL),-impl '$(IMPL)') -long -rounds 10 -benchtime 100ms -out $(CURDIR)/benchmarks/results/latest

## bench-reference: the default scenarios, 20 rounds of 50ms each, into the committed
## docs/results/reference, and the README's and docs' figures from it
## (run it on a quiet machine; about 17 minutes on 2 cores). 20 rounds, not
## 10: a contended run settles in one of two scheduler regimes (both
## processors busy, or the convoy almost on one), chosen per run, so a
## scenario's rounds are a mixture, and 10 of them often left the README's
## 64-goroutine row not significant against x/sync
bench-reference:
	$(SEMABENCH) -command "make bench-reference" -blocks -rounds 20 -benchtime 50ms -out $(REFERENCE)
	$(FIGURES)

## bench-render: the reference report (results.md, blocks.md, charts) and
## the README's and docs' figures again from the committed
## docs/results/reference/results.txt, without running anything
bench-render:
	$(SEMABENCH) -command "make bench-reference" -blocks -from $(REFERENCE)/results.txt -out $(REFERENCE)
	$(FIGURES)

## bench-compare: benchstat OLD NEW, each a results.txt or a results directory,
## e.g. make bench-compare OLD=docs/results/reference NEW=benchmarks/results/latest
bench-compare:
	@test -n "$(OLD)" -a -n "$(NEW)" || { echo "usage: make bench-compare OLD=old-results(.txt|dir) NEW=new-results(.txt|dir)"; exit 2; }
	@old=$(OLD); new=$(NEW); \
	if [ -d "$$old" ]; then old="$$old/results.txt"; fi; \
	if [ -d "$$new" ]; then new="$$new/results.txt"; fi; \
	$(call TOOL,benchstat) old="$$old" new="$$new"

## timelines: draw again every timeline picture the docs show
## (docs/timelines/*.svg), each scenario played in a testing/synctest bubble
## so that the pictures are the same on every machine; a test fails while
## a committed picture differs from what this would draw
timelines:
	cd lab/timeline/render && $(GO) test -count=1 -run 'TestCommittedPicturesAreCurrent' ./scenarios -args -update
