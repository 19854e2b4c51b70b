package semhttp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/semacat/sem/semhttp"
	"github.com/semacat/sem/weighted"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// serve runs one request through h and returns the response.
func serve(h http.Handler, r *http.Request) *http.Response {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Result()
}

func get() *http.Request { return httptest.NewRequest(http.MethodGet, "/", nil) }

// blocking is a handler that holds its request until release is closed.
type blocking struct {
	entered chan struct{}
	release chan struct{}
}

func newBlocking() *blocking {
	return &blocking{entered: make(chan struct{}, 16), release: make(chan struct{})}
}

func (b *blocking) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b.entered <- struct{}{}
	<-b.release
}

func TestRefusesAtOnceWhenFull(t *testing.T) {
	s := weighted.New(1)
	b := newBlocking()
	h := semhttp.Limit(b, s)
	var wg sync.WaitGroup
	wg.Go(func() { serve(h, get()) })
	<-b.entered

	resp := serve(h, get())
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	assert.Equal(t, "1", resp.Header.Get("Retry-After"))

	close(b.release)
	wg.Wait()
	assert.Equal(t, int64(1), s.Available(), "the permit is back after the request")
	assert.Equal(t, http.StatusOK, serve(h, get()).StatusCode, "served once the permit is free") // release is closed
}

func TestWaitsUpToMaxWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := weighted.New(1)
		h := semhttp.Limit(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(2 * time.Second)
		}), s, semhttp.MaxWait(time.Second))
		t0 := time.Now()
		var wg sync.WaitGroup
		wg.Go(func() { serve(h, get()) }) // holds the permit for 2s
		synctest.Wait()

		var short, long *http.Response
		var shortAt time.Duration
		wg.Go(func() { short = serve(h, get()); shortAt = time.Since(t0) })
		synctest.Wait()
		time.Sleep(1500 * time.Millisecond)
		wg.Go(func() { long = serve(h, get()) }) // waits 0.5s, then runs 2s
		wg.Wait()

		assert.Equal(t, http.StatusServiceUnavailable, short.StatusCode)
		assert.Equal(t, time.Second, shortAt, "refused after MaxWait, not before")
		assert.Equal(t, http.StatusOK, long.StatusCode, "a request whose wait ends within MaxWait is served")
		assert.Equal(t, 4*time.Second, time.Since(t0))
		assert.Equal(t, int64(1), s.Available())
	})
}

func TestStopsWaitingWhenTheClientGoes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := weighted.New(1)
		require.True(t, s.TryAcquire(1))
		h := semhttp.Limit(http.NotFoundHandler(), s, semhttp.MaxWait(time.Hour))
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		t0 := time.Now()
		resp := serve(h, get().WithContext(ctx))
		assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
		assert.Equal(t, time.Second, time.Since(t0))
		s.Release(1)
	})
}

func TestRetryAfterRoundsUpToSeconds(t *testing.T) {
	s := weighted.New(1)
	require.True(t, s.TryAcquire(1))
	h := semhttp.Limit(http.NotFoundHandler(), s, semhttp.RetryAfter(1500*time.Millisecond))
	assert.Equal(t, "2", serve(h, get()).Header.Get("Retry-After"))
}

func TestWeight(t *testing.T) {
	s := weighted.New(4)
	byHeader := func(r *http.Request) int64 {
		if r.Header.Get("X-Big") != "" {
			return 3
		}
		return 1
	}
	h := semhttp.Limit(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}), s, semhttp.Weight(byHeader))
	require.True(t, s.TryAcquire(2))
	big := get()
	big.Header.Set("X-Big", "1")
	assert.Equal(t, http.StatusServiceUnavailable, serve(h, big).StatusCode, "3 permits do not fit in the 2 free")
	assert.Equal(t, http.StatusOK, serve(h, get()).StatusCode)
	s.Release(2)
	assert.Equal(t, http.StatusOK, serve(h, big).StatusCode)
	assert.Equal(t, int64(4), s.Available())
}

func TestPanicGivesThePermitsBack(t *testing.T) {
	s := weighted.New(1)
	h := semhttp.Limit(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		panic(http.ErrAbortHandler)
	}), s)
	assert.PanicsWithValue(t, http.ErrAbortHandler, func() { serve(h, get()) })
	assert.Equal(t, int64(1), s.Available())
}

func TestBadOptionsPanic(t *testing.T) {
	assert.PanicsWithValue(t, "semhttp: MaxWait(-1s): negative duration", func() { semhttp.MaxWait(-time.Second) })
	assert.PanicsWithValue(t, "semhttp: RetryAfter(0s): want a positive duration", func() { semhttp.RetryAfter(0) })
	assert.PanicsWithValue(t, "semhttp: Limit(<nil>, *weighted.Semaphore): want a handler and a semaphore, not nil",
		func() { semhttp.Limit(nil, weighted.New(1)) })
}

// With a semaphore that learns nothing, the handler gets the server's own
// ResponseWriter: no wrapper, no allocation, nothing hidden from it.
func TestPlainSemaphoreHandsTheWriterOver(t *testing.T) {
	rec := httptest.NewRecorder()
	h := semhttp.Limit(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		assert.Same(t, rec, w)
	}), weighted.New(1))
	h.ServeHTTP(rec, get())
	assert.Equal(t, http.StatusOK, rec.Code)
}
