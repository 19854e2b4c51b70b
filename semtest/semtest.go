package semtest

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/semacat/sem"
)

// Guarantees declares what an implementation promises beyond the contract.
// The suite checks each claimed guarantee and skips the others.
type Guarantees struct {
	// FIFO: requests of any weight are granted in arrival order. A request
	// at the head of the queue that does not fit blocks those behind it.
	FIFO bool

	// UnitFIFO: single-permit requests are granted in arrival order. FIFO
	// implies it.
	UnitFIFO bool

	// NoStarvation: a waiting Acquire(size) completes while Acquire(1)
	// callers keep cycling, so some permits are always held.
	NoStarvation bool

	// NoBarging: TryAcquire fails while an Acquire is waiting, even when
	// enough permits are free for the TryAcquire itself, and even while the
	// waiter has been given part of its permits.
	NoBarging bool
}

// Option adjusts how [Run] exercises an implementation.
type Option func(*config)

// WithSettle runs the suite in real time instead of inside synctest bubbles.
// The suite calls settle wherever it must wait until every goroutine it has
// started has either blocked in Acquire or returned; a distributed
// implementation typically waits until its waiters are registered on the
// server, or for a fixed interval that comfortably covers a round trip. Use
// it only when synctest cannot see the implementation's blocking.
func WithSettle(settle func()) Option {
	return func(c *config) { c.settle = settle }
}

// DefaultTick is the real-time suite's unit of time unless WithTick sets
// another.
const DefaultTick = 50 * time.Millisecond

// WithTick sets the unit of time used by the real-time suite (see
// [WithSettle]) for timeouts and hold times. The default is DefaultTick. It
// has no effect inside synctest bubbles, where time is simulated.
func WithTick(d time.Duration) Option {
	return func(c *config) { c.tick = d }
}

// WithStress sets the number of goroutines and the operations each performs
// in the stress checks. The defaults are 8 goroutines of 2000 operations, or
// 4 of 25 in real-time mode.
func WithStress(goroutines, ops int) Option {
	return func(c *config) { c.goroutines, c.ops = goroutines, ops }
}

// WithStallLimit sets how long the stress and memory-model checks wait for
// a call to return before they report a lost wake-up or a deadlock; the
// default is DefaultStallLimit. Lengthen it for an implementation whose calls can
// legitimately take that long (a distributed one on a slow server);
// shorten it to report a known-stuck implementation sooner, as semtest's
// own tests do for the broken implementations they run.
func WithStallLimit(d time.Duration) Option {
	if d <= 0 {
		panic(fmt.Sprintf("semtest: WithStallLimit(%v): the limit must be positive", d))
	}
	return func(c *config) { c.stallLimit = d }
}

// WithPackageName sets the name that every panic message of the
// implementation must contain. By default it is the last element of the
// import path of the type that the constructor returns (a major version
// suffix such as /v2 skipped); set it when the package name differs from its
// path, or when the constructor returns a type declared elsewhere.
func WithPackageName(name string) Option {
	return func(c *config) { c.pkg = name }
}

// WithNewAvailable gives the suite the implementation's constructor of a
// semaphore that starts with fewer free permits than its size (see the
// NewAvailable convention in package sem), so that the NewAvailable checks
// run; without it they are skipped.
func WithNewAvailable(newAvailable func(size, available int64) sem.Semaphore) Option {
	return func(c *config) { c.newAvailable = newAvailable }
}

// NewFunc constructs a semaphore of the given size. It must panic when size
// is below 1.
type NewFunc func(size int64) sem.Semaphore

type config struct {
	newSem     NewFunc
	g          Guarantees
	settle     func()
	tick       time.Duration
	goroutines int
	ops        int
	stallLimit time.Duration
	pkg        string // the name every panic message must contain; "" if unknown

	newAvailable func(size, available int64) sem.Semaphore // nil if not given
	has          implements                                // the optional interfaces
	programs     int                                       // random programs of the Model family; 0 for the default
}

func (c *config) realTime() bool { return c.settle != nil }

// Run checks the implementation built by newSem against every row of the
// semacat contract and against the guarantees it claims in g.
func Run(t *testing.T, newSem NewFunc, g Guarantees, opts ...Option) {
	t.Helper()
	c := &config{newSem: newSem, g: g, tick: DefaultTick, stallLimit: DefaultStallLimit}
	for _, o := range opts {
		o(c)
	}
	if c.goroutines == 0 { // WithStress not given
		c.goroutines, c.ops = 8, 2000
		if c.realTime() {
			c.goroutines, c.ops = 4, 25
		}
	}
	if c.g.FIFO {
		c.g.UnitFIFO = true
	}
	probe := c.probe()
	if c.pkg == "" && probe != nil {
		c.pkg = packageOf(probe)
	}
	c.has = implementsOf(probe)

	run(t, "BadInput", c.testBadInput)
	run(t, "ExceedsSize", c.testExceedsSize)
	run(t, "ZeroWeight", c.testZeroWeight)
	run(t, "Acquire", c.testAcquire)
	run(t, "Cancel", c.testCancel)
	run(t, "Liveness", c.testLiveness)
	run(t, "Guarantees", c.testGuarantees)
	run(t, "Leaks", c.testLeaks)
	run(t, "Snapshot", c.testSnapshot)
	run(t, "MemoryModel", c.testMemoryModel)
	run(t, "Stress", c.testStress)
	run(t, "Resize", c.testResize)
	run(t, "Close", c.testClose)
	run(t, "Observe", c.testObserve)
	run(t, "NewAvailable", c.testNewAvailable)
	run(t, "Model", c.testModel)
}

// probe builds a valid semaphore to learn its package and the optional
// interfaces it implements. It returns nil if the constructor panics:
// BadInput reports that.
func (c *config) probe() sem.Semaphore {
	var s sem.Semaphore
	if _, panicked := panics(func() { s = c.newSem(1) }); panicked {
		return nil
	}
	return s
}

// packageOf names the package that declares the concrete type of s.
func packageOf(s sem.Semaphore) string {
	typ := reflect.TypeOf(s)
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	return lastPathElement(typ.PkgPath())
}

var majorVersion = regexp.MustCompile(`^v[0-9]+$`)

// lastPathElement is the package name that an import path suggests: its last
// element, or the one before a major version suffix.
func lastPathElement(path string) string {
	elems := strings.Split(path, "/")
	last := elems[len(elems)-1]
	if majorVersion.MatchString(last) && len(elems) > 1 {
		last = elems[len(elems)-2]
	}
	return last
}
