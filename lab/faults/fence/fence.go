// Package fence is the fenced store of the fault-injection runs: a resource
// that accepts a write only if its fencing token is at least the largest
// token it has accepted for the same key, as a storage service protected by
// a size-1 semaphore's tokens would.
//
// The store is an HTTP server on a loopback port, run by the test process;
// the worker processes write to it with [Write]. It logs every decision,
// accepted or rejected, to a history file (worker "store") in the order it
// made them, which is what the checker replays.
package fence

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"

	"github.com/semacat/sem/lab/faults/history"
)

// unfencedSuffix follows the writer's name in the log of an unfenced write.
const unfencedSuffix = " (unfenced)"

// Store is a running fenced store.
type Store struct {
	srv *http.Server
	url string
	log *history.Writer

	mu      sync.Mutex
	highest map[string]int64 // the largest token accepted per key
}

// Start starts a store on a free loopback port, logging to the history file
// at logPath.
func Start(logPath string) (*Store, error) {
	log, err := history.Create(logPath, "store")
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		_ = log.Close()
		return nil, fmt.Errorf("fence: %w", err)
	}
	s := &Store{log: log, url: "http://" + ln.Addr().String(), highest: map[string]int64{}}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve)}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// URL returns the address workers write to.
func (s *Store) URL() string { return s.url }

// Close stops the store and closes its log.
func (s *Store) Close() error {
	err := s.srv.Close()
	return errors.Join(err, s.log.Close())
}

// serve handles POST /write?key=K&token=T&writer=W[&unfenced=1].
func (s *Store) serve(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	token, err := strconv.ParseInt(q.Get("token"), 10, 64)
	if err != nil || r.Method != http.MethodPost || r.URL.Path != "/write" {
		http.Error(w, "fence: want POST /write?key=K&token=T&writer=W", http.StatusBadRequest)
		return
	}
	accepted, err := s.decide(q.Get("key"), token, q.Get("writer"), q.Get("unfenced") == "1")
	switch {
	case err != nil:
		http.Error(w, err.Error(), http.StatusInternalServerError)
	case accepted:
		w.WriteHeader(http.StatusOK)
	default:
		w.WriteHeader(http.StatusConflict)
	}
}

// decide applies the fence and logs the decision before answering, so the
// log holds every write a worker was told was accepted. An unfenced write,
// as from a client that bypasses the fence, is accepted whatever its token.
func (s *Store) decide(key string, token int64, writer string, unfenced bool) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	top, seen := s.highest[key]
	accepted := unfenced || !seen || token >= top
	kind := history.WriteRejected
	if accepted {
		kind = history.WriteAccepted
		s.highest[key] = max(top, token)
	}
	detail := writer
	if unfenced {
		detail += unfencedSuffix
	}
	return accepted, s.log.Log(history.Event{Kind: kind, Key: key, Token: token, Detail: detail})
}

// Write asks the store at base to write key with token on behalf of writer;
// it reports whether the store accepted. With unfenced, the store skips
// the token check.
func Write(ctx context.Context, c *http.Client, base, key string, token int64, writer string, unfenced bool) (bool, error) {
	q := url.Values{"key": {key}, "token": {strconv.FormatInt(token, 10)}, "writer": {writer}}
	if unfenced {
		q.Set("unfenced", "1")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/write?"+q.Encode(), nil)
	if err != nil {
		return false, fmt.Errorf("fence: %w", err)
	}
	resp, err := c.Do(req)
	if err != nil {
		return false, fmt.Errorf("fence: %w", err)
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
		return true, nil
	case http.StatusConflict:
		return false, nil
	default:
		return false, fmt.Errorf("fence: the store answered %s", resp.Status)
	}
}
