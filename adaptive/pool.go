package adaptive

import "time"

// A probe's mean is precise only to about probePrecision (its standard
// error), and the median of probeMedian probes to not much better. Where
// the capacity is a few requests, that is too coarse: the limit settles
// where the window's mean stands a queue allowance over the no-load mean,
// and there a mean read a twentieth too high holds a request more, which
// at a capacity of 2 breaks the p99 goal, or one too low a request less.
// So once poolLeast probes of one level have counted, the no-load mean is
// the mean of the latencies of the last poolProbes of them, each probe
// weighing its samples: a precision that improves with every probe, at no
// cost in probes; only probes started while the work was known to vary
// widely count, since the others ran at half the limit rounded up. The
// median still decides when the level moved: a probe whose mean rose or
// fell more than stepRise from the no-load mean joins the pool only once
// the median confirms the move, which then empties the pool of the probes
// of the old level.
const (
	poolProbes = 16
	poolLeast  = probeMedian // the probes the pool needs before it replaces the median
)

// probeMean is one probe's mean latency and the samples it held.
type probeMean struct {
	mean    time.Duration
	samples int64
}

// meanPool holds the last probes of one level of the no-load mean.
type meanPool struct {
	probes [poolProbes]probeMean // oldest first
	n      int
}

// add adds p, dropping the oldest if the pool is full.
func (m *meanPool) add(p probeMean) {
	if m.n == poolProbes {
		copy(m.probes[:], m.probes[1:])
		m.n--
	}
	m.probes[m.n] = p
	m.n++
}

// reset empties the pool.
func (m *meanPool) reset() { m.n = 0 }

// mean returns the mean latency of the pooled probes' requests, or 0 if
// the pool holds fewer than poolLeast probes.
func (m *meanPool) mean() time.Duration {
	if m.n < poolLeast {
		return 0
	}
	var sum float64
	var samples int64
	for _, p := range m.probes[:m.n] {
		sum += float64(p.mean) * float64(p.samples)
		samples += p.samples
	}
	return time.Duration(sum / float64(samples))
}

// within reports whether a is within a factor stepRise of b.
func within(a, b time.Duration) bool {
	return float64(a) <= stepRise*float64(b) && float64(b) <= stepRise*float64(a)
}

// learn adds the last probe of recent, the last probes that counted
// (oldest first), whose median is mid: at once if it kept to the level
// (kept); and if the median left the level (level is false), the pool
// holds from then on only those of recent within a factor stepRise of mid.
func (m *meanPool) learn(recent []probeMean, mid time.Duration, kept, level bool) {
	switch {
	case !level:
		m.reset()
		for _, p := range recent {
			if within(p.mean, mid) {
				m.add(p)
			}
		}
	case kept:
		m.add(recent[len(recent)-1])
	}
}
