package chansem_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/semacat/sem/chansem"
)

// A bounded worker pool: at most three jobs run at once, and acquiring the
// whole size at the end waits until every worker has given its permit back,
// that is, until every worker has finished.
func Example_workerPool() {
	ctx := context.Background()
	const workers = 3
	s := chansem.New(workers)

	squares := make([]int, 10)
	for i := range squares {
		if err := s.Acquire(ctx, 1); err != nil {
			break // ctx is done: start no more jobs
		}
		go func() {
			defer s.Release(1)
			squares[i] = i * i
		}()
	}
	if err := s.Acquire(ctx, workers); err != nil {
		fmt.Println("gave up waiting for the workers:", err)
		return
	}
	fmt.Println(squares)
	// Output:
	// [0 1 4 9 16 25 36 49 64 81]
}

// An HTTP handler that limits the database queries running at once. A
// request that cannot get a permit before its context is done (the client
// went away, or a deadline passed) is answered 503 without touching the
// database.
func Example_httpHandler() {
	db := chansem.New(2) // the database takes two queries at once
	var running atomic.Int64
	var tooMany atomic.Bool                                  // ever more than 2 queries at once
	queryUser := func(_ context.Context, id string) string { // a fake query
		if running.Add(1) > 2 {
			tooMany.Store(true)
		}
		defer running.Add(-1)
		return "user " + id
	}

	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := db.Acquire(r.Context(), 1); err != nil {
			http.Error(w, "database busy", http.StatusServiceUnavailable)
			return
		}
		defer db.Release(1)
		fmt.Fprintln(w, queryUser(r.Context(), r.URL.Query().Get("id")))
	})
	get := func(ctx context.Context, id string) string {
		rec := httptest.NewRecorder()
		req := httptest.NewRequestWithContext(ctx, http.MethodGet, "/user?id="+id, nil)
		handler.ServeHTTP(rec, req)
		return fmt.Sprintf("%d %s", rec.Code, strings.TrimSpace(rec.Body.String()))
	}

	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() { get(context.Background(), fmt.Sprint(i)) })
	}
	wg.Wait()
	fmt.Println("at most 2 queries at once:", !tooMany.Load())

	db.TryAcquire(2) // the database is saturated by long queries
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	fmt.Println(get(ctx, "7"))
	db.Release(2)
	fmt.Println(get(context.Background(), "7"))
	// Output:
	// at most 2 queries at once: true
	// 503 database busy
	// 200 user 7
}

// A crawler that limits the fetches in flight. Each page is visited by its
// own goroutine, which holds a permit only while it fetches, not while its
// links are followed.
func Example_crawler() {
	web := map[string][]string{ // a fake web: page -> links
		"/":  {"/a", "/b", "/c"},
		"/a": {"/b", "/d"},
		"/b": {"/"},
		"/c": {"/d", "/e"},
		"/d": nil,
		"/e": {"/a", "/f"},
		"/f": nil,
	}
	var fetching atomic.Int64
	var tooMany atomic.Bool                                 // ever more than 2 fetches at once
	fetch := func(_ context.Context, url string) []string { // a fake fetch
		if fetching.Add(1) > 2 {
			tooMany.Store(true)
		}
		defer fetching.Add(-1)
		return web[url]
	}

	ctx := context.Background()
	fetches := chansem.New(2)
	var (
		mu   sync.Mutex
		seen = map[string]bool{"/": true}
		wg   sync.WaitGroup
	)
	var visit func(url string)
	visit = func(url string) {
		defer wg.Done()
		if fetches.Acquire(ctx, 1) != nil {
			return
		}
		links := fetch(ctx, url)
		fetches.Release(1)
		for _, link := range links {
			mu.Lock()
			isNew := !seen[link]
			seen[link] = true
			mu.Unlock()
			if isNew {
				wg.Add(1)
				go visit(link)
			}
		}
	}
	wg.Add(1)
	go visit("/")
	wg.Wait()

	fmt.Println(slices.Sorted(maps.Keys(seen)))
	fmt.Println("at most 2 fetches at once:", !tooMany.Load())
	// Output:
	// [/ /a /b /c /d /e /f]
	// at most 2 fetches at once: true
}

// Acquire with a deadline: it gives up when the context is done and holds
// nothing afterwards.
func ExampleSemaphore_Acquire_timeout() {
	s := chansem.New(1)
	s.TryAcquire(1) // someone holds the only permit

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	err := s.Acquire(ctx, 1)
	fmt.Println(err, errors.Is(err, context.DeadlineExceeded))
	fmt.Println("free:", s.Available())
	// Output:
	// context deadline exceeded true
	// free: 0
}

// TryAcquire sheds load: work that cannot start at once is refused instead
// of queued.
func ExampleSemaphore_TryAcquire() {
	s := chansem.New(2)
	for job := range 4 {
		if s.TryAcquire(1) {
			fmt.Println("job", job, "started") // and, later, s.Release(1)
		} else {
			fmt.Println("job", job, "refused: busy")
		}
	}
	// Output:
	// job 0 started
	// job 1 started
	// job 2 refused: busy
	// job 3 refused: busy
}

// A semaphore of size 1 is a sync.Locker, and can stand in for a mutex.
func ExampleSemaphore_Lock() {
	var mu sync.Locker = chansem.New(1)
	count := 0
	var wg sync.WaitGroup
	for range 100 {
		wg.Go(func() {
			mu.Lock()
			defer mu.Unlock()
			count++
		})
	}
	wg.Wait()
	fmt.Println(count)
	// Output:
	// 100
}
