package semexpvar_test

import (
	"encoding/json"
	"fmt"

	"github.com/semacat/sem/adaptive"
	"github.com/semacat/sem/semexpvar"
	"github.com/semacat/sem/weighted"
)

// A program publishes its semaphore once, at start-up; /debug/vars (import
// expvar, or net/http/pprof's mux) then shows it with every read. Here the
// variable is read directly, as /debug/vars would show it.
func Example() {
	s := weighted.New(8)
	v := semexpvar.Var(s) // in a program: semexpvar.Publish("renders", s)
	s.TryAcquire(3)

	var m map[string]any
	_ = json.Unmarshal([]byte(v.String()), &m)
	fmt.Println("size", m["size"], "available", m["available"], "waits", m["waits"])
	// Output: size 8 available 5 waits 0
}

// An adaptive limiter reports its limit (Var(l) exports it alone). With
// the wrapped semaphore's numbers, who waits and for how long, in the same
// variable: publish the wrapped semaphore, with the limit as a Gauge.
func Example_adaptive() {
	w := weighted.New(1)
	l := adaptive.New(w, 10, &adaptive.AIMD{})
	v := semexpvar.Var(w, semexpvar.Gauge("limit", l.Limit))

	m := v.Value().(map[string]any)
	fmt.Println("limit", m["limit"], "size", m["size"], "waiting", m["waiting_requests"])
	// Output: limit 10 size 10 waiting 0
}
