package semhttp

import (
	"bufio"
	"io"
	"net"
	"net/http"
)

// statusRecorder is a ResponseWriter that remembers the status of the
// response it writes, for a learning limiter to be told how the request
// went. It offers the optional interfaces handlers look for with a type
// assertion (http.Flusher, http.Hijacker, io.ReaderFrom), each passed on to
// the server's own writer through http.ResponseController, so that a
// handler behaves alike whichever semaphore limits it: a websocket upgrade
// or a sendfile does not depend on the semaphore being adaptive.
type statusRecorder struct {
	http.ResponseWriter
	code     int  // the final status written, 0 until then
	hijacked bool // the handler took the connection: its status is unknown
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
	w.wrote()
	return w.ResponseWriter.Write(p)
}

// ReadFrom writes the body from src, by the server's own ReadFrom where it
// has one (a sendfile for a file).
func (w *statusRecorder) ReadFrom(src io.Reader) (int64, error) {
	w.wrote()
	if rf, ok := w.ResponseWriter.(io.ReaderFrom); ok {
		return rf.ReadFrom(src)
	}
	return io.Copy(w.ResponseWriter, src)
}

// FlushError sends what is buffered to the client and reports why it could
// not (the client went away; http.ErrNotSupported if the server's writer
// cannot flush); http.ResponseController calls it. Like a Write, it fixes
// the status at 200 if none was written.
func (w *statusRecorder) FlushError() error {
	w.wrote()
	return http.NewResponseController(w.ResponseWriter).Flush()
}

// Flush is FlushError for handlers that assert http.Flusher, which has no
// way to report an error.
func (w *statusRecorder) Flush() { _ = w.FlushError() }

// Hijack hands the connection to the handler, if the server's writer can.
// What the handler then writes on it is unknown here, so the request is
// reported as a success (see the package documentation).
func (w *statusRecorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, rw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err == nil {
		w.hijacked = true
	}
	return conn, rw, err
}

// Unwrap returns the server's ResponseWriter, for http.ResponseController.
func (w *statusRecorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// wrote fixes the status at 200 if the handler writes without one.
func (w *statusRecorder) wrote() {
	if w.code == 0 {
		w.code = http.StatusOK
	}
}

// succeeded reports whether the response tells the limiter its backend
// coped: a status below 500 (200 if the handler wrote nothing), or a
// connection the handler took over.
func (w *statusRecorder) succeeded() bool {
	return w.hijacked || w.code < 500
}
