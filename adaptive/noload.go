package adaptive

import "time"

// noLoadEpoch is how many windows an epoch of the no-load latency's
// minimum lasts.
const noLoadEpoch = 100

// noLoad learns the no-load latency as the lowest latency of the last
// epoch and the current one, each noLoadEpoch windows long: a minimum that
// expires, as BBR's minimum round-trip time does, so that a backend whose
// latency rises for good, for reasons that have nothing to do with load,
// is learnt anew within two epochs. While the limit stays near the
// capacity, each epoch holds windows that reach the no-load latency, so the
// minimum does not creep up under load.
type noLoad struct {
	rtt        time.Duration // the no-load latency; 0 until a window succeeds
	last, this time.Duration // the epochs' minimums; 0 if none
	windows    int           // windows in this epoch
}

// learn adds a window's fastest latency, 0 if none succeeded, and reports
// whether rtt changed.
func (n *noLoad) learn(fastest time.Duration) bool {
	n.this = lowest(n.this, fastest)
	next := lowest(n.last, n.this)
	if n.windows++; n.windows == noLoadEpoch {
		n.last, n.this, n.windows = n.this, 0, 0
	}
	changed := next != n.rtt
	n.rtt = next
	return changed
}

// lowest is the lower of a and b that is not 0.
func lowest(a, b time.Duration) time.Duration {
	if a == 0 || (b != 0 && b < a) {
		return b
	}
	return a
}
