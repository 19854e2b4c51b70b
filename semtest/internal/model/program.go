package model

import (
	"fmt"
	"strconv"
	"strings"
)

// A program is the size of one semaphore and the steps run against it. Its
// text form, which [Replay] parses and every failure report prints, is one
// line: the size, then the steps, separated by "; ". A step is one operation,
// or several joined by " + " that run back to back with no settling between
// them (the window in which a grant and a cancellation race):
//
//	size 2; w1 acquire 2 cancelable; t1 try 1; cancel w1 + release t1 1; sleep 2
//
// The operations are:
//
//	wK acquire N CTX   start Acquire(ctx, N) in a new goroutine named wK; CTX is
//	                   bg (context.Background), cancelable, timeout=D (expires
//	                   after D ticks and a half), canceled or expired (done
//	                   before the call)
//	tK try N           TryAcquire(N); if it succeeds, tK holds N permits
//	release H K        Release(K) of permits held by holder H (a wK or tK)
//	cancel wK          cancel wK's context
//	sleep D            let D ticks of simulated time pass
//	overrelease        Release one permit more than all holders hold together,
//	                   which must panic and change nothing
//	steal wK           Release(N) of the N permits waiter wK asked for, by
//	                   another goroutine, while nobody else holds or waits:
//	                   it succeeds exactly when wK has been granted them, and
//	                   then wK, which can no longer give them back, must
//	                   return nil
type program struct {
	size  int64
	steps []step
}

// A step is one or more operations run without settling between them.
type step []op

// opKind names an operation.
type opKind int

const (
	opAcquire opKind = iota
	opTry
	opRelease
	opCancel
	opSleep
	opOverRelease
	opSteal
)

// ctxKind is the context an Acquire runs with.
type ctxKind int

const (
	ctxBackground ctxKind = iota
	ctxCancelable
	ctxTimeout
	ctxCanceled
	ctxExpired
)

var ctxNames = [...]string{"bg", "cancelable", "timeout", "canceled", "expired"}

// op is one operation. name is the waiter or TryAcquire it creates (acquire,
// try) or the holder or waiter it acts on (release, cancel).
type op struct {
	kind opKind
	name string
	n    int64   // permits: to acquire, try or release
	ctx  ctxKind // acquire only
	d    int     // ticks: sleep, or an acquire's timeout
}

func (o op) String() string {
	switch o.kind {
	case opAcquire:
		c := ctxNames[o.ctx]
		if o.ctx == ctxTimeout {
			c += "=" + strconv.Itoa(o.d)
		}
		return fmt.Sprintf("%s acquire %d %s", o.name, o.n, c)
	case opTry:
		return fmt.Sprintf("%s try %d", o.name, o.n)
	case opRelease:
		return fmt.Sprintf("release %s %d", o.name, o.n)
	case opCancel:
		return "cancel " + o.name
	case opSleep:
		return fmt.Sprintf("sleep %d", o.d)
	case opSteal:
		return "steal " + o.name
	default:
		return "overrelease"
	}
}

func (s step) String() string {
	parts := make([]string, len(s))
	for i, o := range s {
		parts[i] = o.String()
	}
	return strings.Join(parts, " + ")
}

func (p program) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "size %d", p.size)
	for _, s := range p.steps {
		b.WriteString("; ")
		b.WriteString(s.String())
	}
	return b.String()
}

// clone returns a deep copy of p, for the shrinker to edit.
func (p program) clone() program {
	steps := make([]step, len(p.steps))
	for i, s := range p.steps {
		steps[i] = append(step(nil), s...)
	}
	return program{size: p.size, steps: steps}
}

// parse reads the text form of a program.
func parse(text string) (program, error) {
	fields := strings.Split(strings.TrimSpace(text), ";")
	var p program
	head := strings.Fields(fields[0])
	if len(head) != 2 || head[0] != "size" {
		return p, fmt.Errorf("model: program %q must start with \"size N\"", text)
	}
	size, err := strconv.ParseInt(head[1], 10, 64)
	if err != nil || size < 1 {
		return p, fmt.Errorf("model: program %q: size %q must be a positive integer", text, head[1])
	}
	p.size = size
	for _, f := range fields[1:] {
		var s step
		for _, part := range strings.Split(f, "+") {
			o, err := parseOp(strings.Fields(part))
			if err != nil {
				return p, fmt.Errorf("model: program %q: step %q: %w", text, strings.TrimSpace(f), err)
			}
			s = append(s, o)
		}
		p.steps = append(p.steps, s)
	}
	return p, nil
}

// parseOp reads one operation from its words.
func parseOp(w []string) (op, error) {
	bad := fmt.Errorf("cannot read %q; want one of: wK acquire N CTX, tK try N, release H K, cancel wK, sleep D, overrelease, steal wK",
		strings.Join(w, " "))
	switch {
	case len(w) == 1 && w[0] == "overrelease":
		return op{kind: opOverRelease}, nil
	case len(w) == 2 && w[0] == "sleep":
		d, err := strconv.Atoi(w[1])
		if err != nil || d < 1 {
			return op{}, bad
		}
		return op{kind: opSleep, d: d}, nil
	case len(w) == 2 && w[0] == "cancel" && strings.HasPrefix(w[1], "w"):
		return op{kind: opCancel, name: w[1]}, nil
	case len(w) == 2 && w[0] == "steal" && strings.HasPrefix(w[1], "w"):
		return op{kind: opSteal, name: w[1]}, nil
	case len(w) == 3 && w[0] == "release":
		n, err := strconv.ParseInt(w[2], 10, 64)
		if err != nil || n < 1 {
			return op{}, bad
		}
		return op{kind: opRelease, name: w[1], n: n}, nil
	case len(w) == 3 && w[1] == "try" && strings.HasPrefix(w[0], "t"):
		n, err := strconv.ParseInt(w[2], 10, 64)
		if err != nil || n < 0 {
			return op{}, bad
		}
		return op{kind: opTry, name: w[0], n: n}, nil
	case len(w) == 4 && w[1] == "acquire" && strings.HasPrefix(w[0], "w"):
		n, err := strconv.ParseInt(w[2], 10, 64)
		if err != nil || n < 0 {
			return op{}, bad
		}
		o := op{kind: opAcquire, name: w[0], n: n}
		if o.ctx, o.d, err = parseCtx(w[3]); err != nil {
			return op{}, bad
		}
		return o, nil
	}
	return op{}, bad
}

// parseCtx reads an acquire's context: a kind, and for a timeout its ticks.
func parseCtx(s string) (ctxKind, int, error) {
	if d, ok := strings.CutPrefix(s, "timeout="); ok {
		ticks, err := strconv.Atoi(d)
		if err != nil || ticks < 0 {
			return 0, 0, fmt.Errorf("bad timeout %q", s)
		}
		return ctxTimeout, ticks, nil
	}
	for k, name := range ctxNames {
		if name == s && ctxKind(k) != ctxTimeout {
			return ctxKind(k), 0, nil
		}
	}
	return 0, 0, fmt.Errorf("unknown context %q", s)
}
