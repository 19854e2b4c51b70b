# semacat: every command a contributor or CI needs. Only Go is required;
# tools run from tools/go.mod with `go tool`, so nothing is installed by hand.

GO      ?= go
TOOL    := $(GO) tool -modfile=$(CURDIR)/tools/go.mod
# Every Go module in the tree but the tools module: the root and the nested
# modules (distributed strategies, chart drawing) that keep heavy
# dependencies away from users of the core packages.
MODULES := $(patsubst ./%,%,$(patsubst %/go.mod,%,$(shell find . -name go.mod -not -path './tools/*' -not -path '*/testdata/*' | sort)))

.PHONY: all test vet cover lint bench bench-long bench-compare

all: test

## test: go vet and the race-enabled tests of every module
test:
	@set -e; for m in $(MODULES); do \
		echo "== $$m: go vet && go test -race"; \
		(cd $$m && $(GO) vet ./... && $(GO) test -race -count=1 ./...); \
	done

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

## bench: the head-to-head run of every strategy against the references
bench:
	$(GO) test -run '^$$' -bench . -benchmem -count 5 ./benchmarks | tee benchmarks/results.txt
	$(TOOL) benchstat -col /impl benchmarks/results.txt

## bench-compare: benchstat OLD NEW, e.g. make bench-compare OLD=a.txt NEW=b.txt
bench-compare:
	@test -n "$(OLD)" -a -n "$(NEW)" || { echo "usage: make bench-compare OLD=old-results.txt NEW=new-results.txt"; exit 2; }
	$(TOOL) benchstat $(OLD) $(NEW)
