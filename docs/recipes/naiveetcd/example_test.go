package naiveetcd_test

import (
	"context"
	"fmt"

	"github.com/semacat/sem/docs/recipes/naiveetcd"
)

// Two clients of the recipe with one permit. b's Acquire runs while a is
// between reading the count and writing it: both read 0, both write 1,
// both get in. (The tests run an etcd server in-process for this example.)
func Example() {
	ctx := context.Background()
	if _, err := cli.Delete(ctx, "example-naive"); err != nil { // start from an empty count
		panic(err)
	}
	a := naiveetcd.New(cli, "example-naive", 1)
	b := naiveetcd.New(cli, "example-naive", 1)
	a.BetweenReadAndWrite = func() {
		a.BetweenReadAndWrite = nil
		fmt.Println("b acquires:", b.Acquire(ctx))
	}
	fmt.Println("a acquires:", a.Acquire(ctx))
	count, _ := a.Count(ctx)
	fmt.Println("holders: 2, count stored:", count)
	// Output:
	// b acquires: <nil>
	// a acquires: <nil>
	// holders: 2, count stored: 1
}
