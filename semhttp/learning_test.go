package semhttp_test

import (
	"bufio"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
	synctest.Test(t, func(t *testing.T) {
		alg := &recording{}
		l := adaptive.New(weighted.New(1), 2, alg)
		h := semhttp.Limit(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(time.Millisecond)
			w.WriteHeader(http.StatusOK) // the status is written, then the handler panics
			panic(http.ErrAbortHandler)
		}), l)
		for alg.windows == nil {
			assert.Panics(t, func() { serve(h, get()) })
		}
		assert.Equal(t, alg.windows[0].Samples, alg.windows[0].Drops)
		tok, ok := l.TryStart(2)
		require.True(t, ok, "the permits came back after each panic")
		tok.Done(true)
	})
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
