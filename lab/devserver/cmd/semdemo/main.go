// Command semdemo shows several processes sharing one etcdsem semaphore.
//
// By default it starts an etcd server inside its own process (nothing to
// install), then starts worker processes (itself, re-executed) that each
// acquire a random number of permits a few times, hold them briefly and give
// them back, printing who holds what. It exits when every worker is done.
//
//	go run ./cmd/semdemo                                 # embedded etcd
//	go run ./cmd/semdemo --endpoints localhost:2379      # a real cluster
//	go run ./cmd/semdemo --workers 5 --size 4 --rounds 6
//
// Kill a worker with SIGKILL while it holds permits (its pid is printed) to
// watch the others wait for its lease to expire, then carry on.
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/semacat/sem/etcdsem"
	"github.com/semacat/sem/lab/devserver"
	"github.com/semacat/sem/lab/devserver/etcd"
)

func main() {
	var (
		endpoints = flag.String("endpoints", "", "comma-separated etcd endpoints; empty starts an embedded etcd")
		workers   = flag.Int("workers", 4, "number of worker processes")
		size      = flag.Int64("size", 3, "permits in the semaphore")
		rounds    = flag.Int("rounds", 4, "acquisitions per worker")
		ttl       = flag.Duration("ttl", 5*time.Second, "lease TTL: how long a crashed worker's permits stay taken")
		name      = flag.String("name", fmt.Sprintf("semdemo-%d", os.Getpid()), "semaphore name")
		worker    = flag.Int("worker", -1, "internal: run as worker number n")
	)
	flag.Parse()
	var err error
	if *worker >= 0 {
		err = work(*worker, strings.Split(*endpoints, ","), *name, *size, *rounds, *ttl)
	} else {
		err = run(*endpoints, *workers, *name, *size, *rounds, *ttl)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "semdemo:", err)
		os.Exit(1)
	}
}

// run starts etcd if needed and the workers, and waits for them.
func run(endpoints string, workers int, name string, size int64, rounds int, ttl time.Duration) error {
	if endpoints == "" {
		dir, err := os.MkdirTemp("", "semdemo-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		c, err := etcd.Start(dir, 1)
		if err != nil {
			return err
		}
		defer c.Close()
		endpoints = strings.Join(c.Endpoints, ",")
		fmt.Printf("embedded etcd at %s\n", endpoints)
	}
	fmt.Printf("semaphore %q: %d permits, %d workers, %d rounds each, lease TTL %v\n", name, size, workers, rounds, ttl)
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	// Bound the run: a worker that hangs (an unreachable cluster) is killed.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute+time.Duration(rounds)*ttl)
	defer cancel()
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for i := range workers {
		cmd := exec.CommandContext(ctx, exe, "--worker", strconv.Itoa(i), "--endpoints", endpoints,
			"--name", name, "--size", strconv.FormatInt(size, 10), "--rounds", strconv.Itoa(rounds), "--ttl", ttl.String())
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		devserver.DieWithParent(cmd) // a demo killed leaves no worker behind
		if err := cmd.Start(); err != nil {
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := cmd.Wait(); err != nil {
				errs[i] = fmt.Errorf("worker %d: %w", i, err)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	fmt.Println("all workers done")
	return nil
}

// work is one worker process: rounds acquisitions of random weight.
func work(id int, endpoints []string, name string, size int64, rounds int, ttl time.Duration) error {
	cli, err := clientv3.New(clientv3.Config{Endpoints: endpoints, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		return err
	}
	defer cli.Close()
	me := fmt.Sprintf("worker %d (pid %d)", id, os.Getpid())
	s, err := etcdsem.New(context.Background(), cli, name, size, etcdsem.WithLease(ttl), etcdsem.WithOwner(me),
		etcdsem.WithErrorHandler(func(err error) { fmt.Fprintf(os.Stderr, "%s: %v\n", me, err) }))
	if err != nil {
		return err
	}
	defer s.Close()
	r := rand.New(rand.NewPCG(uint64(os.Getpid()), uint64(id)))
	for range rounds {
		n := 1 + r.Int64N(size)
		fmt.Printf("%s wants %d\n", me, n)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute+ttl)
		p, err := s.AcquirePermit(ctx, n)
		cancel()
		if err != nil {
			return err
		}
		free, err := s.Available(context.Background())
		if err != nil {
			return err
		}
		fmt.Printf("%s holds %d (token %d); %d of %d free\n", me, n, p.Token(), free, size)
		time.Sleep(time.Duration(200+r.IntN(400)) * time.Millisecond)
		fmt.Printf("%s releases %d\n", me, n)
		if err := p.Release(context.Background()); err != nil {
			return err
		}
	}
	return nil
}
