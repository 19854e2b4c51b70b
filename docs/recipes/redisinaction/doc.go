// Package redisinaction holds the three counting semaphores of "Redis in
// Action" (section 6.3), written from the book's description of their
// algorithms, as flawed recipes kept for teaching: docs/recipes.md shows
// each failing next to redissem, which fixes it. Do not use them.
//
//   - [Basic]: one sorted set of holders scored by the client's clock; a
//     client is in if its rank is below the limit. A client whose clock is
//     behind ranks ahead of the holders and gets in past the limit.
//   - [Fair]: ranks come from a shared counter instead of clocks, but the
//     counter is taken in one step and the rank in the next; a client that
//     took a smaller counter and is slow to its second step gets in after
//     a faster one already did.
//   - [Locked]: Fair under a lock, so the steps no longer interleave. The
//     holders still time out by the client's clock: a client whose clock
//     is ahead evicts valid holders and gets in beside them.
//
// Every client carries its own clock, so that tests can skew it. redissem
// reads no client clock: its leases run on the server's.
package redisinaction

import (
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// Clock tells a client what time it thinks it is.
type Clock func() time.Time

// client is what every recipe's handle has: a connection, the
// semaphore's name and limit, how long a holder stays valid, the client's
// clock and its identifier.
type client struct {
	rdb     redis.UniversalClient
	name    string
	limit   int64
	timeout time.Duration
	clock   Clock
	id      string
}

// seconds is t as the book scores it: fractional seconds since the epoch.
func seconds(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }

// staleBefore is the score below which a holder has timed out, by this
// client's clock.
func (c *client) staleBefore() string {
	return "(" + strconv.FormatFloat(seconds(c.clock().Add(-c.timeout)), 'f', -1, 64)
}
