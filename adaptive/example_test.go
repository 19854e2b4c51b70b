package adaptive_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/semacat/sem/adaptive"
	"github.com/semacat/sem/weighted"
)

// A client limits its calls to a backend whose capacity it does not know:
// the limit starts at 10 and moves between 2 and 200 from the latencies
// and the overload errors it sees.
func Example() {
	errOverloaded := errors.New("backend overloaded")
	l := adaptive.New(weighted.New(1), 10, &adaptive.Vegas{}, adaptive.WithBounds(2, 200))
	call := func(ctx context.Context) error {
		time.Sleep(time.Millisecond) // the backend's work
		return nil
	}
	ctx := context.Background()
	for range 100 {
		tok, err := l.Start(ctx, 1)
		if err != nil {
			return
		}
		err = call(ctx)
		tok.Done(!errors.Is(err, errOverloaded))
	}
	fmt.Println("limit between 2 and 200:", l.Limit() >= 2 && l.Limit() <= 200)
	// Output: limit between 2 and 200: true
}

// Report takes a latency measured elsewhere, here the server's own
// processing time, which leaves the network out of the signal.
func ExampleToken_Report() {
	l := adaptive.New(weighted.New(1), 8, &adaptive.AIMD{})
	tok, ok := l.TryStart(1)
	if !ok {
		return
	}
	serverTime := 3 * time.Millisecond // from a response header, say
	tok.Report(serverTime, true)
	fmt.Println(l.Limit())
	// Output: 8
}
