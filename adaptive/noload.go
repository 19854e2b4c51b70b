package adaptive

import "time"

// Every probeEvery windows the Limiter probes the no-load latency: it holds
// the limit at half its value for probeWindows windows, the first to let
// the requests in flight drain, the last to measure.
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
	windows int           // windows since the last probe ended
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

// probeDue reports whether the window that closes now is the last before a
// probe, and starts the probe if so.
func (n *noLoad) probeDue() bool {
	if n.probing > 0 {
		return false
	}
	if n.windows++; n.windows < probeEvery {
		return false
	}
	n.windows, n.probing = 0, probeWindows
	return true
}
