package semhttp_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem"
	"github.com/semacat/sem/adaptive"
	"github.com/semacat/sem/semhttp"
	"github.com/semacat/sem/weighted"
)

// recording is an Algorithm that keeps the windows it is shown and never
// moves the limit.
type recording struct{ windows []adaptive.Window }

func (a *recording) Next(w adaptive.Window) float64 {
	a.windows = append(a.windows, w)
	return w.Limit
}

// outcomes serves requests answered with status through the limiter, a
// window's worth and one more to close it, and returns the window.
func outcomes(t *testing.T, status int) adaptive.Window {
	t.Helper()
	var w adaptive.Window
	synctest.Test(t, func(t *testing.T) {
		alg := &recording{}
		l := adaptive.New(weighted.New(1), 4, alg)
		h := semhttp.Limit(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(time.Millisecond)
			w.WriteHeader(http.StatusEarlyHints) // informational: not the status
			w.WriteHeader(status)
		}), l)
		for alg.windows == nil {
			serve(h, get())
		}
		assert.Equal(t, int64(4), l.Limit())
		w = alg.windows[0]
	})
	return w
}

func TestLimiterIsToldSuccess(t *testing.T) {
	w := outcomes(t, http.StatusNotFound)
	assert.Positive(t, w.Samples)
	assert.Zero(t, w.Drops, "a status below 500 is a success")
}

func TestLimiterIsToldFailure(t *testing.T) {
	w := outcomes(t, http.StatusBadGateway)
	assert.Positive(t, w.Drops)
	assert.Equal(t, w.Samples, w.Drops, "a status of 500 or more is a failure")
}

func TestLimiterIsToldAPanicFailed(t *testing.T) {
	for _, tc := range []struct {
		name   string
		panic  any
		failed bool
	}{
		{"panic", "boom", true},
		// The client went away: that says nothing of the backend's load.
		{"ErrAbortHandler", http.ErrAbortHandler, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				alg := &recording{}
				l := adaptive.New(weighted.New(1), 2, alg)
				h := semhttp.Limit(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					time.Sleep(time.Millisecond)
					w.WriteHeader(http.StatusOK) // the status is written, then the handler panics
					panic(tc.panic)
				}), l)
				for alg.windows == nil {
					assert.PanicsWithValue(t, tc.panic, func() { serve(h, get()) })
				}
				drops := int64(0)
				if tc.failed {
					drops = alg.windows[0].Samples
				}
				assert.EqualValues(t, drops, alg.windows[0].Drops)
				tok, ok := l.TryStart(2)
				require.True(t, ok, "the permits came back after each panic")
				tok.Done(true)
			})
		})
	}
}

func TestLimiterRefusesWhenFull(t *testing.T) {
	l := adaptive.New(weighted.New(1), 1, &adaptive.AIMD{})
	tok, ok := l.TryStart(1)
	require.True(t, ok)
	h := semhttp.Limit(http.NotFoundHandler(), l)
	assert.Equal(t, http.StatusServiceUnavailable, serve(h, get()).StatusCode)
	tok.Done(true)
	assert.Equal(t, http.StatusNotFound, serve(h, get()).StatusCode)
}

// flushRecorder is a ResponseRecorder that can also hijack, as the server's
// HTTP/1 writer can.
type flushRecorder struct {
	*httptest.ResponseRecorder
	hijacked bool
}

func (f *flushRecorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	f.hijacked = true
	return nil, nil, nil
}

func TestRecorderKeepsTheWritersFeatures(t *testing.T) {
	l := adaptive.New(weighted.New(1), 1, &adaptive.AIMD{})
	h := semhttp.Limit(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, ok := w.(http.Flusher)
		require.True(t, ok, "the recorder is a Flusher")
		f.Flush()
		rc := http.NewResponseController(w)
		require.NoError(t, rc.Flush())
		_, _, err := rc.Hijack()
		require.NoError(t, err, "Hijack reaches the server's writer through Unwrap")
	}), l)
	w := &flushRecorder{ResponseRecorder: httptest.NewRecorder()}
	h.ServeHTTP(w, get())
	assert.True(t, w.Flushed)
	assert.True(t, w.hijacked)
}

// A handler behaves alike whichever semaphore limits it: the optional
// interfaces it asserts are there, and the errors the server's writer
// gives reach it.
func TestRecorderPassesOnTheWritersAnswers(t *testing.T) {
	serveWith := func(w http.ResponseWriter, h http.HandlerFunc) {
		semhttp.Limit(h, adaptive.New(weighted.New(1), 1, &adaptive.AIMD{})).ServeHTTP(w, get())
	}
	t.Run("FlushError", func(t *testing.T) {
		gone := errors.New("client gone")
		serveWith(failingFlusher{httptest.NewRecorder(), gone}, func(w http.ResponseWriter, r *http.Request) {
			assert.ErrorIs(t, http.NewResponseController(w).Flush(), gone)
		})
		serveWith(plainWriter{httptest.NewRecorder()}, func(w http.ResponseWriter, r *http.Request) {
			assert.ErrorIs(t, http.NewResponseController(w).Flush(), http.ErrNotSupported)
		})
	})
	t.Run("Hijacker", func(t *testing.T) {
		w := &flushRecorder{ResponseRecorder: httptest.NewRecorder()}
		serveWith(w, func(w http.ResponseWriter, r *http.Request) {
			hj, ok := w.(http.Hijacker)
			require.True(t, ok, "a websocket upgrader asserts http.Hijacker")
			_, _, err := hj.Hijack()
			assert.NoError(t, err)
		})
		assert.True(t, w.hijacked)
	})
	t.Run("ReaderFrom", func(t *testing.T) {
		w := httptest.NewRecorder()
		serveWith(w, func(w http.ResponseWriter, r *http.Request) {
			rf, ok := w.(io.ReaderFrom)
			require.True(t, ok, "io.Copy looks for io.ReaderFrom, a file's sendfile")
			_, err := rf.ReadFrom(strings.NewReader("body"))
			assert.NoError(t, err)
		})
		assert.Equal(t, "body", w.Body.String())
		assert.Equal(t, http.StatusOK, w.Code)
	})
}

// failingFlusher is a writer whose flush fails, as the server's does once
// the client is gone.
type failingFlusher struct {
	*httptest.ResponseRecorder
	err error
}

func (f failingFlusher) FlushError() error { return f.err }

// plainWriter is a writer with no optional interface at all.
type plainWriter struct{ w *httptest.ResponseRecorder }

func (p plainWriter) Header() http.Header         { return p.w.Header() }
func (p plainWriter) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p plainWriter) WriteHeader(code int)        { p.w.WriteHeader(code) }

// A client gone before its request is served is not served, with or
// without a wait allowed, as Acquire with a done context takes nothing.
func TestGoneClientIsNotServed(t *testing.T) {
	for _, s := range []sem.Semaphore{weighted.New(1), adaptive.New(weighted.New(1), 1, &adaptive.AIMD{})} {
		for _, wait := range []time.Duration{0, time.Second} {
			served := false
			h := semhttp.Limit(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { served = true }), s, semhttp.MaxWait(wait))
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			h.ServeHTTP(httptest.NewRecorder(), get().WithContext(ctx))
			assert.False(t, served, "%T, MaxWait(%v)", s, wait)
		}
	}
}
