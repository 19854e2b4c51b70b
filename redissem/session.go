package redissem

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/redis/go-redis/v9"
)

// ErrSessionClosed is returned by New for a handle on a Session that was
// closed.
var ErrSessionClosed = errors.New("redissem: session closed")

// Session shares one pub/sub connection among many handles, on as many
// names as needed, where each handle would otherwise hold its own: a
// process that uses a thousand semaphores holds one subscription, not a
// thousand. Make handles on it with [WithSession]. Each handle still runs
// its own scripts and refreshes (a semaphore's keys live in one slot, and
// different names may live on different Cluster masters).
type Session struct {
	ps *redis.PubSub
	wg sync.WaitGroup

	mu      sync.Mutex
	closed  bool
	handles map[string]*Semaphore // by notification channel
}

// NewSession opens a Session on rdb: one pub/sub connection, and a
// goroutine that hands each notification to its handle. Close it once the
// handles made with it are closed.
func NewSession(rdb redis.UniversalClient) *Session {
	ss := &Session{ps: rdb.Subscribe(context.Background()), handles: make(map[string]*Semaphore)}
	ss.wg.Add(1)
	go ss.dispatch(ss.ps.Channel())
	return ss
}

func (ss *Session) dispatch(msgs <-chan *redis.Message) {
	defer ss.wg.Done()
	for m := range msgs {
		ss.mu.Lock()
		s := ss.handles[m.Channel]
		ss.mu.Unlock()
		if s != nil {
			s.deliver(m.Payload)
		}
	}
}

// Close closes the pub/sub connection. Handles still open on the Session
// stop receiving notifications (their refreshes still find their grants,
// within the poll interval); New fails on it with ErrSessionClosed.
func (ss *Session) Close() error {
	ss.mu.Lock()
	if ss.closed {
		ss.mu.Unlock()
		return nil
	}
	ss.closed = true
	ss.mu.Unlock()
	err := ss.ps.Close()
	ss.wg.Wait()
	return err
}

// WithSession makes the handle receive its notifications through ss
// instead of a pub/sub connection of its own. The handle's client and the
// Session's must reach the same Redis.
func WithSession(ss *Session) Option {
	return func(o *options) { o.session = ss }
}

// subscribe adds s's notification channel to the session. A notification
// published before Redis ran the SUBSCRIBE is lost, which the handle's
// refresh of its waiters' entries makes up for; none can be published
// before the handle's first request, which comes later.
func (ss *Session) subscribe(ctx context.Context, channel string, s *Semaphore) error {
	ss.mu.Lock()
	if ss.closed {
		ss.mu.Unlock()
		return ErrSessionClosed
	}
	ss.handles[channel] = s
	ss.mu.Unlock()
	if err := ss.ps.Subscribe(ctx, channel); err != nil {
		ss.unsubscribe(channel)
		return fmt.Errorf("subscribing: %w", err)
	}
	return nil
}

func (ss *Session) unsubscribe(channel string) error {
	ss.mu.Lock()
	delete(ss.handles, channel)
	closed := ss.closed
	ss.mu.Unlock()
	if closed {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
	defer cancel()
	return ss.ps.Unsubscribe(ctx, channel)
}
