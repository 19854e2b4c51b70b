package etcdsem_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/semacat/sem/etcdsem"
)

// One process limits its uploads and its database connections with two
// semaphores that share one lease: one keep-alive for both. If the process
// dies, the lease expires and both give back what it held.
func ExampleSession() {
	endpoints := os.Getenv("ETCD_ENDPOINTS")
	if endpoints == "" {
		endpoints = "localhost:2379"
	}
	cli, err := clientv3.New(clientv3.Config{Endpoints: strings.Split(endpoints, ","), DialTimeout: 5 * time.Second})
	if err != nil {
		log.Fatal(err)
	}
	defer cli.Close()

	ctx := context.Background()
	session, err := etcdsem.NewSession(ctx, cli, etcdsem.WithLease(10*time.Second))
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close() // revokes the lease: last, after the handles
	uploads, err := etcdsem.New(ctx, cli, "example-uploads", 4, etcdsem.WithSession(session))
	if err != nil {
		log.Fatal(err)
	}
	defer uploads.Close()
	conns, err := etcdsem.New(ctx, cli, "example-db-connections", 2, etcdsem.WithSession(session))
	if err != nil {
		log.Fatal(err)
	}
	defer conns.Close()

	if err := uploads.Acquire(ctx, 1); err != nil {
		log.Fatal(err)
	}
	defer uploads.Release(1)
	if err := conns.Acquire(ctx, 1); err != nil {
		log.Fatal(err)
	}
	defer conns.Release(1)
	fmt.Println("one lease:", uploads.Lease() == conns.Lease() && conns.Lease() == session.Lease())
	// Output: one lease: true
}
