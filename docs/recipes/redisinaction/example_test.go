package redisinaction_test

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/semacat/sem/docs/recipes/redisinaction"
)

// Two clients of the timestamp-scored semaphore with one permit; the
// second one's clock is five seconds behind. It ranks ahead of the holder
// and gets in too. (The tests start a redis-server for this example.)
func ExampleBasic() {
	ctx := context.Background()
	rdb := redis.NewClient(options())
	defer rdb.Close()
	now := func() time.Time { return time.Now() }
	behind := func() time.Time { return time.Now().Add(-5 * time.Second) }
	a := redisinaction.NewBasic(rdb, "example-basic", 1, 10*time.Second, now, "a")
	b := redisinaction.NewBasic(rdb, "example-basic", 1, 10*time.Second, behind, "b")
	aIn, _ := a.TryAcquire(ctx)
	bIn, _ := b.TryAcquire(ctx)
	fmt.Println("a holds:", aIn, "- b, whose clock is behind, holds:", bIn)
	_ = a.Release(ctx)
	_ = b.Release(ctx)
	// Output:
	// a holds: true - b, whose clock is behind, holds: true
}
