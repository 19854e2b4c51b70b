// Command etcd is the etcd server, built from the etcd version the
// repository's modules use, for tests that run etcd as a separate process
// (etcdsem's). It takes etcd's own flags and behaves as the etcd release
// binary does: SIGTERM stops it gracefully, handing leadership over first;
// SIGKILL is a crash.
//
//	go build -o bin/etcd ./cmd/etcd
//	ETCDSEM_TEST_ETCD=$PWD/bin/etcd go test ./...   (in etcdsem)
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
