package redissem

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// The round trips to Redis: running a script and reading its reply, turning
// a failure into the package's errors, confirming with the replicas, and
// withdrawing or retrying a request whose outcome is unknown. Acquire
// (acquire.go) and the background work (background.go) both build on them.

// eval runs a script with the handle's keys and common arguments, then
// args. The size it passes is the latest this handle saw, so that a
// semaphore recreated after a loss keeps a Resize. New passes create,
// which lets the script create a semaphore that does not exist yet; so
// does a handle that may have seen its name expire idle (mayBeExpired). s.mu must not be held.
func (s *Semaphore) eval(ctx context.Context, script *redis.Script, create bool, args ...any) *redis.Cmd {
	flag := ""
	switch {
	case create:
		flag = "new"
	case s.mayBeExpired():
		flag = "idle"
	}
	s.lastSent.Store(int64(time.Since(s.born)))
	all := make([]any, 0, 2+len(s.base)+len(args))
	all = append(append(append(append(all, s.size.Load()), s.base...), flag), args...)
	return script.Run(ctx, s.rdb, s.keys, all...)
}

// ints returns a script's reply as integers.
func (s *Semaphore) ints(cmd *redis.Cmd) ([]int64, error) {
	v, err := cmd.Slice()
	if err != nil {
		return nil, s.scriptError(err)
	}
	out := make([]int64, len(v))
	for i, x := range v {
		switch x := x.(type) {
		case int64:
			out[i] = x
		case string:
			if out[i], err = strconv.ParseInt(x, 10, 64); err != nil {
				return nil, fmt.Errorf("unexpected reply %q from script: %w", x, err)
			}
		default:
			return nil, fmt.Errorf("unexpected reply %v from script", v)
		}
	}
	return out, nil
}

// parseNotice splits a notification, "<id> <token>" (see scripts.go), into
// the request's id and the grant's token, and reports false for a payload
// without a space. token is "" when the payload carries none: a shrink
// failed the request, or it is malformed.
func parseNotice(payload string) (id, token string, ok bool) {
	id, token, ok = strings.Cut(payload, " ")
	if _, isToken := parseToken(token); !isToken {
		token = ""
	}
	return id, token, ok
}

// parseToken reads a grant's token as the scripts send it: a decimal
// integer.
func parseToken(s string) (int64, bool) {
	token, err := strconv.ParseInt(s, 10, 64)
	return token, err == nil
}

// update runs the update script on pairs of id and count (see
// updateScript); it returns the ids Redis does not know.
func (s *Semaphore) update(ctx context.Context, pairs []any) ([]string, error) {
	missing, _, err := s.updateWaiting(ctx, pairs)
	return missing, err
}

// updateWaiting is update that also returns the tokens of the granted
// waiters among the pairs (those given with -2), by id.
func (s *Semaphore) updateWaiting(ctx context.Context, pairs []any) ([]string, map[string]string, error) {
	res, err := s.eval(ctx, updateScript, false, pairs...).Slice()
	if err != nil {
		return nil, nil, s.scriptError(err)
	}
	lists := make([][]string, 2)
	for i := range lists {
		if i < len(res) {
			items, _ := res[i].([]any)
			for _, x := range items {
				str, _ := x.(string)
				lists[i] = append(lists[i], str)
			}
		}
	}
	if len(res) > 2 {
		if size, ok := res[2].(int64); ok {
			s.size.Store(size)
		}
	}
	granted := make(map[string]string, len(lists[1])/2)
	for i := 0; i+1 < len(lists[1]); i += 2 {
		granted[lists[1][i]] = lists[1][i+1]
	}
	return lists[0], granted, nil
}

// confirm asks Redis to confirm that s.replicas replicas received
// everything up to now, the grant included. The write before WAIT, on the
// same connection in one round trip, makes WAIT cover the grant even when
// another client's script made it: WAIT counts the replicas that acknowledged
// the replication offset of its connection's last write.
func (s *Semaphore) confirm(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, s.timeout+s.replicaWait)
	defer cancel()
	primary, err := s.primary(ctx)
	if err != nil {
		return s.scriptError(err)
	}
	var acks *redis.Cmd
	_, err = primary.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.HIncrBy(ctx, s.keys[0], "confirms", 1)
		acks = p.Do(ctx, "WAIT", s.replicas, s.replicaWait.Milliseconds())
		return nil
	})
	if err != nil {
		return s.scriptError(err)
	}
	if got, _ := acks.Int64(); got < int64(s.replicas) {
		return fmt.Errorf("%w: %d of %d replicas confirmed within %v", ErrNotReplicated, got, s.replicas, s.replicaWait)
	}
	return nil
}

// primary returns the client of the server that holds the semaphore's keys:
// WAIT takes no key, so on a Cluster it must go to the keys' master, on the
// same connection as a write to them. New refuses WithReplicas on clients
// of other kinds.
func (s *Semaphore) primary(ctx context.Context) (redis.Cmdable, error) {
	if c, ok := s.rdb.(*redis.ClusterClient); ok {
		return c.MasterForKey(ctx, s.keys[0])
	}
	return s.rdb, nil
}

// reloadClusterMap makes a Cluster client reload its map of slots, in the
// background: after a failover, go-redis keeps sending to the dead master
// until its map is reloaded, which it otherwise does only on a MOVED reply
// (the dead master sends none) or at its reload interval; and the node
// client that confirm takes from the map answers MOVED until then.
func (s *Semaphore) reloadClusterMap() {
	if c, ok := s.rdb.(*redis.ClusterClient); ok {
		c.ReloadState(context.Background())
	}
}

// scriptError turns the scripts' refusals into errors wrapping
// ErrSizeMismatch and ErrStateLost, and a failed round trip or a refusal
// by the server (see refusal) into an error wrapping ErrUnavailable. A timeout is not wrapped as
// context.DeadlineExceeded, which callers take to mean their own ctx.
func (s *Semaphore) scriptError(err error) error {
	if err == nil {
		return nil
	}
	var rerr redis.Error
	if !errors.As(err, &rerr) || strings.HasPrefix(err.Error(), "CLUSTERDOWN") || strings.HasPrefix(err.Error(), "MOVED") {
		s.reloadClusterMap()
	}
	if !errors.As(err, &rerr) {
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
			return fmt.Errorf("%w: no reply in time (%v)", ErrUnavailable, err)
		}
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	if refusal(err) {
		return fmt.Errorf("%w: Redis refused the script: %w", ErrUnavailable, err)
	}
	if rest, ok := strings.CutPrefix(err.Error(), "SEMSIZE "); ok {
		return fmt.Errorf("%w: %q has size %s in Redis, this handle expects %d; use another name or the same size",
			ErrSizeMismatch, s.name, rest, s.size.Load())
	}
	if rest, ok := strings.CutPrefix(err.Error(), "SEMLOST "); ok {
		ms, _ := strconv.ParseInt(rest, 10, 64)
		return fmt.Errorf("%w: its keys were evicted or deleted (use maxmemory-policy noeviction or volatile-*); "+
			"grants are refused for %v more, until every lease given out before has run out",
			ErrStateLost, time.Duration(ms)*time.Millisecond)
	}
	return err
}

// withdraw takes a request out of Redis: out of the queue, or out of the
// holders if it was granted meanwhile; those behind it are admitted if they
// now fit. It takes at most the handle's timeout. On failure the handle
// retries in the background, and the entry expires within the lease at the
// latest.
func (s *Semaphore) withdraw(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	if _, err := s.update(ctx, []any{id, 0}); err != nil {
		s.retryLater(id)
		s.report(fmt.Errorf("%s: withdrawing request %s from %q: %w; retrying, and it expires within %v at the latest", pkg, id, s.name, err, s.lease))
	}
}

// retryLater makes the refresher release or withdraw ids until Redis
// confirms it.
func (s *Semaphore) retryLater(ids ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	for _, id := range ids {
		s.pending[id] = struct{}{}
	}
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

func (s *Semaphore) report(err error) {
	if s.onError != nil {
		s.onError(err)
	}
}

// refusals are the error prefixes of a server that cannot run a script
// now but may later: full (OOM), a Cluster slot in migration (TRYAGAIN),
// a Cluster or a replica without its master (CLUSTERDOWN, MASTERDOWN), a
// server loading its data (LOADING) or a replica that takes no writes
// (READONLY, after a failover the client has not seen yet), a script
// that runs too long (BUSY), or a primary with fewer replicas than its
// min-replicas-to-write (NOREPLICAS). go-redis retries some itself; what is left when its retries run out is
// unavailability, retried as every failed round trip is.
var refusals = []string{"OOM ", "TRYAGAIN ", "CLUSTERDOWN ", "MASTERDOWN ", "LOADING ", "READONLY ", "BUSY ", "NOREPLICAS "}

// refusal reports whether err is a server's refusal to run a script now.
func refusal(err error) bool {
	msg := err.Error()
	for _, p := range refusals {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

// mayBeExpired reports whether the name may have expired idle since the
// handle last sent a script on it: it holds no grant, and it sent nothing
// for the idle time (by the monotonic clock, which a suspend stops: then
// it errs towards ErrStateLost). Only then may a script that finds every
// key gone create the name afresh (see scripts.go).
func (s *Semaphore) mayBeExpired() bool {
	if time.Since(s.born)-time.Duration(s.lastSent.Load()) < s.idle {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.grants) == 0
}
