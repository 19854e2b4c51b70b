package semhttp_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/semacat/sem/adaptive"
	"github.com/semacat/sem/semhttp"
	"github.com/semacat/sem/weighted"
)

// At most two requests are served at once; a third is refused at once,
// with 503 and a Retry-After header.
func Example() {
	s := weighted.New(2)
	h := semhttp.Limit(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "hello")
	}), s)

	s.TryAcquire(2) // two requests in flight, say
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	fmt.Println(w.Code, w.Header().Get("Retry-After"))

	s.Release(2)
	w = httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	fmt.Println(w.Code, w.Body.String())
	// Output:
	// 503 1
	// 200 hello
}

// With an adaptive limiter, the limit moves from the latencies and the
// statuses of the responses (500 and above are failures); requests wait up
// to 50ms for room before they are refused, and clients are told to retry
// after 2 seconds.
func ExampleLimit_adaptive() {
	l := adaptive.New(weighted.New(1), 20, &adaptive.Gradient{}, adaptive.WithBounds(4, 500))
	mux := http.NewServeMux()
	mux.HandleFunc("/search", func(w http.ResponseWriter, r *http.Request) {})
	h := semhttp.Limit(mux, l, semhttp.MaxWait(50*time.Millisecond), semhttp.RetryAfter(2*time.Second))

	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/search", nil))
	fmt.Println(w.Code, l.Limit())
	// Output: 200 20
}
