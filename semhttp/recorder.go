package semhttp

import "net/http"

// statusRecorder is a ResponseWriter that remembers the status of the
// response it writes, for a learning limiter to be told how the request
// went.
type statusRecorder struct {
	http.ResponseWriter
	code int // the final status written, 0 until then
}

// WriteHeader records code if it is the final status (not an informational
// 1xx one) and passes it on.
func (w *statusRecorder) WriteHeader(code int) {
	if w.code == 0 && code >= 200 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

// Write writes the body; without a WriteHeader before it, the status is
// 200, as net/http sends it.
func (w *statusRecorder) Write(p []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(p)
}

// Flush sends what is buffered to the client, if the server's writer can;
// like a Write, it fixes the status at 200 if none was written.
func (w *statusRecorder) Flush() {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	_ = http.NewResponseController(w.ResponseWriter).Flush() // not supported: nothing to flush
}

// Unwrap returns the server's ResponseWriter, for http.ResponseController.
func (w *statusRecorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// status is the status the client got, or gets: 200 if the handler wrote
// nothing.
func (w *statusRecorder) status() int {
	if w.code == 0 {
		return http.StatusOK
	}
	return w.code
}
