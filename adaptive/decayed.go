package adaptive

import "time"

// decayed sums what windows measured, each window weighing half the next:
// the latencies of their successes, the successes, the requests that
// ended, and those of them that failed.
type decayed struct{ latency, successes, ends, failed float64 }

// add adds a window whose samples successes took mean on average, and in
// which ended requests ended, failed of them failing.
func (d *decayed) add(mean time.Duration, samples, ended, failed int64) {
	if mean > 0 {
		d.latency = d.latency/2 + float64(mean)*float64(samples)
		d.successes = d.successes/2 + float64(samples)
	}
	if ended > 0 {
		d.ends = d.ends/2 + float64(ended)
		d.failed = d.failed/2 + float64(failed)
	}
}

// mean returns the mean latency of the successes, 0 if there were none.
func (d decayed) mean() time.Duration {
	if d.successes == 0 {
		return 0
	}
	return time.Duration(d.latency / d.successes)
}

// failShare returns the share of the ended requests that failed; call it
// only when some ended.
func (d decayed) failShare() float64 { return d.failed / d.ends }
