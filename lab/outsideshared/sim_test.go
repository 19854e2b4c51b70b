package outsideshared

import (
	"context"
	"math"
	"math/rand/v2"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/semacat/sem/adaptive"
)

// ---------- processor-sharing backend ----------

type job struct {
	rem  float64 // seconds of work left at full speed
	done chan struct{}
}

// PS is a backend that serves up to cap requests at full speed and shares
// itself among more (each gets cap/n of a server). Capacity may change.
type PS struct {
	in      chan *job
	stop    chan struct{}
	setCap  chan float64
	cap     float64
	inSvc   atomic.Int64
	maxSeen atomic.Int64
}

func NewPS(c float64) *PS {
	b := &PS{in: make(chan *job), stop: make(chan struct{}), setCap: make(chan float64), cap: c}
	go b.run()
	return b
}

func (b *PS) rate(n int) float64 {
	if float64(n) <= b.cap {
		return 1
	}
	return b.cap / float64(n)
}

func (b *PS) run() {
	var jobs []*job
	last := time.Now()
	for {
		var wait <-chan time.Time
		var t *time.Timer
		if len(jobs) > 0 {
			m := math.Inf(1)
			for _, j := range jobs {
				m = min(m, j.rem)
			}
			d := time.Duration(math.Ceil(m / b.rate(len(jobs)) * 1e9))
			if d < 1 {
				d = 1
			}
			t = time.NewTimer(d)
			wait = t.C
		}
		var nj *job
		var nc float64
		stop := false
		select {
		case nj = <-b.in:
		case nc = <-b.setCap:
		case <-wait:
		case <-b.stop:
			stop = true
		}
		if t != nil {
			t.Stop()
		}
		if stop {
			return
		}
		// advance the jobs in service to now, at the rate in force until now
		now := time.Now()
		el := now.Sub(last).Seconds()
		last = now
		if len(jobs) > 0 {
			r := b.rate(len(jobs))
			k := 0
			for _, j := range jobs {
				j.rem -= el * r
				if j.rem <= 1e-9 {
					close(j.done)
					continue
				}
				jobs[k] = j
				k++
			}
			for i := k; i < len(jobs); i++ {
				jobs[i] = nil
			}
			jobs = jobs[:k]
		}
		if nj != nil {
			jobs = append(jobs, nj)
			if int64(len(jobs)) > b.maxSeen.Load() {
				b.maxSeen.Store(int64(len(jobs)))
			}
		}
		if nc != 0 {
			b.cap = nc
		}
		b.inSvc.Store(int64(len(jobs)))
	}
}

// Submit starts work w and returns a channel closed when it is done.
func (b *PS) Submit(w time.Duration) chan struct{} {
	j := &job{rem: w.Seconds(), done: make(chan struct{})}
	b.in <- j
	return j.done
}

func (b *PS) SetCap(c float64) { b.setCap <- c }
func (b *PS) Close()           { close(b.stop) }

// ---------- shared, locked rand source for the Limiter ----------

type lockedSrc struct {
	mu sync.Mutex
	s  *rand.PCG
}

func (l *lockedSrc) Uint64() uint64 { l.mu.Lock(); defer l.mu.Unlock(); return l.s.Uint64() }

func newSrc(seed uint64) *lockedSrc { return &lockedSrc{s: rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)} }

// ---------- a recording algorithm wrapper ----------

type recAlg struct {
	inner adaptive.Algorithm
	mu    sync.Mutex
	wins  []recWin
}

type recWin struct {
	at time.Time
	w  adaptive.Window
	nx float64
}

func (r *recAlg) Next(w adaptive.Window) float64 {
	n := r.inner.Next(w)
	r.mu.Lock()
	r.wins = append(r.wins, recWin{time.Now(), w, n})
	r.mu.Unlock()
	return n
}

// ---------- statistics ----------

func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	i := int(math.Ceil(q*float64(len(s)))) - 1
	if i < 0 {
		i = 0
	}
	return s[i]
}

// uniform20 draws 10ms ±20%.
func uniform20(r *rand.Rand) time.Duration {
	return time.Duration(float64(10*time.Millisecond) * (0.8 + 0.4*r.Float64()))
}

const unloadedP99 = 10 * time.Millisecond * 1196 / 1000 // p99 of 10ms ±20% uniform

// admitter abstracts a limiter or a fixed-size semaphore for a client.
type admitter interface {
	// admit returns a done func (ok) and whether admitted.
	admit(ctx context.Context, class int) (func(ok bool), error)
	limit() int64
}
