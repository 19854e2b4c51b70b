# semacat: every command a contributor or CI needs. Only Go is required;
# tools run from tools/go.mod with `go tool`, so nothing is installed by hand.

GO      ?= go
TOOL    := GOWORK=off $(GO) tool -modfile=$(CURDIR)/tools/go.mod
# Every Go module in the tree but the tools module: the root and the nested
# modules (distributed strategies, chart drawing) that keep heavy
# dependencies away from users of the core packages.
MODULES := $(patsubst ./%,%,$(patsubst %/go.mod,%,$(shell find . -name go.mod -not -path './tools/*' -not -path '*/testdata/*' | sort)))

.PHONY: all test testdeps vet cover lint bench bench-long bench-reference bench-compare bench-render timelines faults

all: test

## test: go vet and the race-enabled tests of every module, one line per
## package (gotestsum); a failure names the test and shows its output.
## vet runs with -race so that it type-checks against the same compiled
## dependencies the race tests use: a plain vet would compile every
## dependency (etcd, gRPC, ...) a second time on a fresh machine.
test: testdeps
	@failed=""; for m in $(MODULES); do \
		echo "== $$m"; \
		(cd $$m && $(GO) vet -race ./... && \
			$(TOOL) gotestsum --format pkgname --format-hide-empty-pkg --hide-summary=skipped -- -race -count=1 ./...) \
		|| failed="$$failed $$m"; \
	done; \
	if [ -n "$$failed" ]; then echo "make test: FAIL in:$$failed"; exit 1; fi; \
	echo "make test: ok, every module passed: $(MODULES)"

## testdeps: install what the tests need beyond Go (redis-server,
## redis-sentinel) when missing and allowed, else say the command to run;
## then check that script itself on simulated machines
testdeps:
	@sh tools/testdeps.sh
	@sh tools/testdeps_test.sh >/dev/null || sh tools/testdeps_test.sh

## cover: tests with coverage of the root module, summary per function
cover:
	$(GO) test -count=1 -coverprofile=coverage.out ./...
	$(GO) tool cover -func=coverage.out | tail -n 1

## lint: staticcheck over every module
lint:
	@set -e; for m in $(MODULES); do \
		echo "== $$m: staticcheck"; \
		(cd $$m && $(TOOL) staticcheck ./...); \
	done

## faults: the fault-injection scenarios of etcdsem and redissem in long
## mode (5 workers, 25s and four faults per scenario, four scenarios at a
## time), ending with the table: scenario, operations, faults, violations,
## permits-back p50 and p99 (see internal/faults/doc.go)
faults: testdeps
	cd internal/faults && SEMACAT_FAULTS=long $(GO) test -count=1 -timeout 20m

## bench: the head-to-head run of every strategy against the references,
## each contended scenario in its steady state (see benchmarks/steady.go),
## 6 rounds of 15ms each (under 5 minutes on 2 cores): a progress line per
## scenario with the time left, a summary table, and
## benchmarks/results/latest/{results.txt,results.md,blocks.md,*.svg}
SEMABENCH := cd benchmarks/semabench && $(GO) run . -root $(CURDIR)
REFERENCE := $(CURDIR)/benchmarks/results/reference
bench:
	$(SEMABENCH) -command "make bench" -benchtime 15ms -out $(CURDIR)/benchmarks/results/latest

## bench-long: the thorough run: more goroutine counts, 10 rounds, 100ms each
bench-long:
	$(SEMABENCH) -command "make bench-long" -long -rounds 10 -benchtime 100ms -out $(CURDIR)/benchmarks/results/latest

## bench-reference: the default scenarios, 50ms each, into the committed
## benchmarks/results/reference, and the README's and docs' figures from it
## (run it on a quiet machine)
bench-reference:
	$(SEMABENCH) -command "make bench-reference" -benchtime 50ms -out $(REFERENCE) -docs

## bench-render: the reference report (results.md, blocks.md, charts) and
## the README's and docs' figures again from the committed
## benchmarks/results/reference/results.txt, without running anything
bench-render:
	$(SEMABENCH) -command "make bench-reference" -from $(REFERENCE)/results.txt -out $(REFERENCE) -docs

## bench-compare: benchstat OLD NEW, each a results.txt or a results directory,
## e.g. make bench-compare OLD=benchmarks/results/reference NEW=benchmarks/results/latest
bench-compare:
	@test -n "$(OLD)" -a -n "$(NEW)" || { echo "usage: make bench-compare OLD=old-results(.txt|dir) NEW=new-results(.txt|dir)"; exit 2; }
	@old=$(OLD); new=$(NEW); \
	if [ -d "$$old" ]; then old="$$old/results.txt"; fi; \
	if [ -d "$$new" ]; then new="$$new/results.txt"; fi; \
	$(TOOL) benchstat old="$$old" new="$$new"

## timelines: draw again every timeline picture the docs show
## (docs/timelines/*.svg), each scenario played in a testing/synctest bubble
## so that the pictures are the same on every machine; a test fails while
## a committed picture differs from what this would draw
timelines:
	cd timeline/render && $(GO) test -count=1 -run 'TestCommittedPicturesAreCurrent' ./scenarios -args -update
