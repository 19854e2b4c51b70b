package redissem

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/redis/go-redis/v9"
)

// ErrSessionClosed is wrapped by the errors of the Permits a Session's
// Close ended, and is returned by New for a handle on a Session that was
// closed.
var ErrSessionClosed = errors.New("redissem: session closed")

// errSessionEnded ends the grants of the handles a Session's Close closes.
var errSessionEnded = fmt.Errorf("%w: %w", ErrSessionClosed, ErrClosed)

// Session shares one pub/sub connection and one lease among many handles,
// on as many names as needed, where each handle would otherwise hold its
// own: a process that uses a thousand semaphores holds one subscription and
// one refresher, not a thousand. Make handles on it with [WithSession].
//
// One goroutine schedules the refreshes of the grants and queue entries of
// every handle on the Session, each on the handle's own schedule, in one
// script per handle (a semaphore's keys live in one slot, and two names
// may live on different Cluster masters), run in a goroutine of its own
// while its round trip lasts: a stalled master delays only the handles on
// it. One timer ends the grants whose validity is over, for every handle.
// Each grant is a lease of its own in Redis, and its fate is its own: a
// grant found gone, or past its validity, ends alone. Close closes every
// handle still open on it.
type Session struct {
	ps   *redis.PubSub
	done chan struct{} // closed by Close
	kick chan struct{} // a handle joined, or awaits a retry
	wg   sync.WaitGroup

	mu      sync.Mutex
	closed  bool
	handles map[string]*Semaphore // by notification channel
	expiry  expiryTimer           // ends the grants of every handle (expiry.go)
}

// NewSession opens a Session on rdb: one pub/sub connection, a goroutine
// that hands each notification to its handle, and one that schedules the
// refreshes of every handle. It fails, with an error wrapping
// ErrUnavailable (and ctx's error too if ctx is done by then), if the
// connection cannot be opened within ctx and DefaultTimeout; go-redis
// bounds the wait for the reply by ctx only with ContextTimeoutEnabled,
// else by the client's ReadTimeout (see [New]). Close it once done with
// its handles.
func NewSession(ctx context.Context, rdb redis.UniversalClient) (*Session, error) {
	tctx, cancel := context.WithTimeout(ctx, DefaultTimeout)
	defer cancel()
	ps := rdb.Subscribe(tctx)
	if err := ps.Ping(tctx); err != nil {
		_ = ps.Close()
		err = withCtxErr(ctx, fmt.Errorf("%w: %w", ErrUnavailable, err))
		return nil, fmt.Errorf("%s: NewSession: opening the pub/sub connection: %w", pkg, err)
	}
	ss := &Session{
		ps:      ps,
		done:    make(chan struct{}),
		kick:    make(chan struct{}, 1),
		handles: make(map[string]*Semaphore),
	}
	ss.expiry.start(ss.expireDue)
	ss.wg.Add(2)
	go ss.dispatch(ss.ps.Channel())
	go ss.refresher()
	return ss, nil
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

// Close ends the Session: it closes every handle still open on it, as
// their Close does, except that the Done channels of their Permits close
// with an error wrapping both ErrSessionClosed and ErrClosed; then it stops
// the refresher and closes the pub/sub connection. New fails on it with
// ErrSessionClosed. Close returns the handles' errors, if any. Closing
// again does nothing and returns nil.
func (ss *Session) Close() error {
	ss.mu.Lock()
	if ss.closed {
		ss.mu.Unlock()
		return nil
	}
	ss.closed = true
	ss.expiry.stop()
	handles := ss.members()
	ss.mu.Unlock()
	close(ss.done)
	var err error
	for _, s := range handles {
		err = errors.Join(err, s.shut(errSessionEnded))
	}
	err = errors.Join(err, ss.ps.Close())
	ss.wg.Wait()
	return err
}

// members returns the handles open on the Session, in the order of their
// channels, so that every refresh round takes them in the same order;
// ss.mu must be held.
func (ss *Session) members() []*Semaphore {
	handles := make([]*Semaphore, 0, len(ss.handles))
	for _, channel := range slices.Sorted(maps.Keys(ss.handles)) {
		handles = append(handles, ss.handles[channel])
	}
	return handles
}

// WithSession makes the handle receive its notifications through ss, and
// have its leases refreshed and its grants expired by ss, instead of a
// pub/sub connection, a goroutine and a timer of its own. The handle keeps
// its own lease duration and poll interval, and its grants their own
// fate; the Session's Close closes it. The handle's client and the Session's must reach the
// same Redis.
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
	ss.wake() // its lease may be shorter than the refresher's interval
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
