package limitsim

import "time"

// The goals an algorithm must meet in every scenario, in one run. The docs'
// adaptive page quotes this block.
const (
	// GoodputGoal is the least goodput, as a fraction of the best fixed
	// size's.
	GoodputGoal = 0.9
	// P99Goal is the most p99 latency once the limit has settled, as a
	// multiple of the unloaded p99.
	P99Goal = 1.5
	// SettleGoal is the longest time from the capacity's halving until the
	// limit stays within Band of the new capacity.
	SettleGoal = 3 * time.Second
	// Band is how close to the capacity the limit must stay once it has
	// come that close, as a fraction of the capacity: the widest swing.
	Band = 0.2
)

// Misses lists the goals r misses, each named "scenario/contender: goal"
// with goal one of goodput, p99, settle and swing.
func Misses(r Row) []string {
	name := r.Scenario + "/" + r.Contender + ": "
	var out []string
	if r.VsBest < GoodputGoal {
		out = append(out, name+"goodput")
	}
	if r.P99 == 0 || float64(r.P99) > P99Goal*float64(r.Unloaded) {
		out = append(out, name+"p99")
	}
	if r.Settle < 0 || r.Settle > SettleGoal {
		out = append(out, name+"settle")
	}
	if r.Swing > Band {
		out = append(out, name+"swing")
	}
	return out
}
