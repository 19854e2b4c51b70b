package adaptive

import "time"

// Every probeEvery times the shortest window the Limiter probes the no-load
// latency: it holds the limit at half its value for probeWindows windows,
// the first to let the requests in flight drain, the last to measure. The
// period is in time, not in windows, since a window also waits for enough
// samples, and at a limit of a few requests a hundred windows can last many
// seconds: a limit that a latency step pushed to its floor would wait that
// long to learn.
const (
	probeEvery   = 100
	probeWindows = 2
)

// noLoad learns the no-load latency: the lowest latency seen, except that
// a probe replaces it with the fastest latency of a window run at half the
// limit, as BBR's ProbeRTT drains its queue to measure the round trip
// anew. A backend whose latency rises for good, for reasons that have
// nothing to do with load, is so learnt anew within one period of probes;
// and since a window at half the limit holds no queue while the limit is
// near the capacity, the probe does not let queueing creep into the
// no-load latency under sustained overload, as a minimum that merely
// expired would.
type noLoad struct {
	rtt     time.Duration // the no-load latency; 0 until a window succeeds
	ended   int64         // Limiter.now() when the last probe ended, or rtt was first learnt
	probing int           // windows of the probe left, 0 if none runs
}

// learn adds a window's fastest latency, 0 if none succeeded, and reports
// whether rtt changed and whether the window was part of a probe, whose
// windows the algorithm must not see.
func (n *noLoad) learn(fastest time.Duration) (changed, probe bool) {
	old := n.rtt
	switch {
	case n.probing > 0:
		probe = true
		if n.probing--; n.probing == 0 && fastest > 0 {
			n.rtt = fastest
		}
	case fastest > 0 && (n.rtt == 0 || fastest < n.rtt):
		n.rtt = fastest
	}
	return n.rtt != old, probe
}

// probeDue reports whether the window that closes at now, when the
// shortest window is winLen, is the last before a probe, and starts the
// probe if so.
func (n *noLoad) probeDue(now, winLen int64) bool {
	if n.rtt == 0 || n.probing > 0 {
		return false
	}
	if n.ended == 0 { // the first latency: the period starts
		n.ended = now
	}
	if now-n.ended < probeEvery*winLen {
		return false
	}
	n.probing = probeWindows
	return true
}

// probeEnded records that the probe ended at now.
func (n *noLoad) probeEnded(now int64) { n.ended = now }
