package pitfalls_test

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/semacat/sem/chansem"
)

// A job fetches a page over the network, which is slow and needs no database
// connection, then stores it, which is fast and needs one. The semaphore db
// limits the connections in use.
const (
	fetchTime = 100 * time.Millisecond
	storeTime = 10 * time.Millisecond
)

// jobHoldingAcross takes the connection before the slow fetch.
func jobHoldingAcross(ctx context.Context, db *chansem.Semaphore) {
	if db.Acquire(ctx, 1) != nil {
		return
	}
	defer db.Release(1)
	time.Sleep(fetchTime) // BUG: the connection sits idle during the fetch
	time.Sleep(storeTime)
}

// jobHoldingForStore takes the connection only for the part that uses it.
func jobHoldingForStore(ctx context.Context, db *chansem.Semaphore) {
	time.Sleep(fetchTime)
	if db.Acquire(ctx, 1) != nil {
		return
	}
	defer db.Release(1)
	time.Sleep(storeTime)
}

// runJobs runs 8 jobs against 2 connections and returns how long they took on
// the bubble's simulated clock.
func runJobs(job func(context.Context, *chansem.Semaphore)) time.Duration {
	db := chansem.New(2)
	start := time.Now()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { job(context.Background(), db) })
	}
	wg.Wait()
	return time.Since(start)
}

// Holding the permit across the fetch makes the fetches wait for each other:
// 8 jobs in 4 rounds of 110ms. Holding it for the store only lets all fetches
// overlap: 100ms, then 4 rounds of 10ms.
func TestSlowWorkInsideThePermit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		assert.Equal(t, 4*(fetchTime+storeTime), runJobs(jobHoldingAcross))
		assert.Equal(t, fetchTime+4*storeTime, runJobs(jobHoldingForStore))
	})
}
