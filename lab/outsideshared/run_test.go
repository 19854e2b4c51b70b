package outsideshared

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/semacat/sem/adaptive"
	"github.com/semacat/sem/weighted"
)

func seeds() []uint64 {
	s := os.Getenv("B8_SEEDS")
	if s == "" {
		return []uint64{1}
	}
	var out []uint64
	for _, f := range splitComma(s) {
		v, _ := strconv.ParseUint(f, 10, 64)
		out = append(out, v)
	}
	return out
}

func splitComma(s string) []string {
	var out []string
	cur := ""
	for _, c := range s {
		if c == ',' {
			out = append(out, cur)
			cur = ""
		} else {
			cur += string(c)
		}
	}
	return append(out, cur)
}

// ---------- admitters ----------

type limAdm struct {
	l     *adaptive.Limiter
	start bool
}

func (a *limAdm) admit(ctx context.Context, class int) (func(bool), error) {
	if a.start {
		var tok adaptive.Token
		var err error
		if class < 0 {
			tok, err = a.l.Start(ctx, 1)
		} else {
			tok, err = a.l.StartClass(ctx, class, 1)
		}
		if err != nil {
			return nil, err
		}
		return tok.Done, nil
	}
	var tok adaptive.Token
	var ok bool
	if class < 0 {
		tok, ok = a.l.TryStart(1)
	} else {
		tok, ok = a.l.TryStartClass(class, 1)
	}
	if !ok {
		return nil, errRefused
	}
	return tok.Done, nil
}
func (a *limAdm) limit() int64 { return a.l.Limit() }

var errRefused = errors.New("refused")

type fixedAdm struct {
	s *weighted.Semaphore
	k int64
}

func newFixed(k int64) *fixedAdm { return &fixedAdm{weighted.New(k), k} }
func (a *fixedAdm) admit(ctx context.Context, class int) (func(bool), error) {
	if !a.s.TryAcquire(1) {
		return nil, errRefused
	}
	return func(bool) { a.s.Release(1) }, nil
}
func (a *fixedAdm) limit() int64 { return a.k }

// ---------- open-loop streams ----------

type stream struct {
	name    string
	adm     admitter
	class   int     // -1: plain Start/TryStart
	rate    float64 // requests per second
	rateFn  func(t time.Duration) float64
	from    time.Duration
	to      time.Duration // 0: run length
	seed    uint64
	retries int           // closed-ish: retry a refused request this many times
	backoff time.Duration // pause before a retry

	mu                              sync.Mutex
	arr, ok, refused, timeout, fail int
	lat                             []float64
	limits                          []float64 // sampled every 50 ms
	attempts                        int
}

type runCfg struct {
	length, warm time.Duration
	deadline     time.Duration
	stepAt       time.Duration
	step         float64
	capAt        []capChange
}

type capChange struct {
	at  time.Duration
	cap float64
}

// runOpen runs the streams against backend b for cfg.length of fake time; call inside a synctest bubble.
func runOpen(b *PS, cfg runCfg, streams []*stream) {
	t0 := time.Now()
	var mult atomic.Uint64
	mult.Store(math.Float64bits(1))
	var wg sync.WaitGroup
	stopS := make(chan struct{})
	// sampler
	var swg sync.WaitGroup
	swg.Add(1)
	go func() {
		defer swg.Done()
		tk := time.NewTicker(50 * time.Millisecond)
		defer tk.Stop()
		for {
			select {
			case <-stopS:
				return
			case <-tk.C:
				for _, s := range streams {
					s.limits = append(s.limits, float64(s.adm.limit()))
				}
			}
		}
	}()
	if cfg.step != 0 {
		swg.Add(1)
		go func() {
			defer swg.Done()
			time.Sleep(cfg.stepAt)
			mult.Store(math.Float64bits(cfg.step))
		}()
	}
	for _, cc := range cfg.capAt {
		cc := cc
		swg.Add(1)
		go func() {
			defer swg.Done()
			time.Sleep(cc.at)
			b.SetCap(cc.cap)
		}()
	}
	for _, s := range streams {
		s := s
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(s.seed, 77))
			to := s.to
			if to == 0 {
				to = cfg.length
			}
			time.Sleep(s.from)
			for {
				rate := s.rate
				el := time.Since(t0)
				if s.rateFn != nil {
					rate = s.rateFn(el)
				}
				gap := time.Duration(r.ExpFloat64() / rate * 1e9)
				time.Sleep(gap)
				el = time.Since(t0)
				if el >= to {
					return
				}
				w := uniform20(r)
				counted := el >= cfg.warm
				wg.Add(1)
				go func() {
					defer wg.Done()
					arrive := time.Now()
					ctx, cancel := context.WithTimeout(context.Background(), cfg.deadline)
					defer cancel()
					var done func(bool)
					var err error
					for a := 0; ; a++ {
						done, err = s.adm.admit(ctx, s.class)
						if err == nil || a >= s.retries || ctx.Err() != nil {
							break
						}
						if s.backoff > 0 {
							t := time.NewTimer(s.backoff)
							select {
							case <-t.C:
							case <-ctx.Done():
							}
							t.Stop()
						}
					}
					if err != nil {
						if counted {
							s.mu.Lock()
							s.arr++
							s.refused++
							s.mu.Unlock()
						}
						return
					}
					m := math.Float64frombits(mult.Load())
					ch := b.Submit(time.Duration(float64(w) * m))
					select {
					case <-ch:
						done(true)
						if counted {
							l := time.Since(arrive).Seconds()
							s.mu.Lock()
							s.arr++
							s.ok++
							s.lat = append(s.lat, l)
							s.mu.Unlock()
						}
					case <-ctx.Done():
						done(false)
						if counted {
							s.mu.Lock()
							s.arr++
							s.timeout++
							s.mu.Unlock()
						}
					}
				}()
			}
		}()
	}
	time.Sleep(cfg.length)
	wg.Wait()
	close(stopS)
	swg.Wait()
}

// medianPerSecond returns the median of each second's limit samples, from warm on.
func medianPerSecond(samples []float64, warm time.Duration) []float64 {
	per := 20
	var out []float64
	for i := int(warm / (50 * time.Millisecond)); i+per <= len(samples); i += per {
		s := append([]float64(nil), samples[i:i+per]...)
		sort.Float64s(s)
		out = append(out, s[per/2])
	}
	return out
}

func fmtSeries(xs []float64) string {
	s := ""
	for _, x := range xs {
		s += fmt.Sprintf("%.0f ", x)
	}
	return s
}
