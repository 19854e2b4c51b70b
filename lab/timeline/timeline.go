package timeline

import (
	"errors"
	"time"
)

// A Timeline is what a Recorder saw, lane by lane, as spans (waiting,
// holding, failed) and marks (wake-ups, grants, failures, releases), with
// times measured from the Recorder's start.
type Timeline struct {
	Lanes []LaneLine
	// End is when the Timeline was taken; a span still open then ends there.
	End time.Duration
}

// LaneLine is one lane of a Timeline, spans and marks each in time order.
type LaneLine struct {
	Name  string
	Spans []Span
	Marks []Mark
}

// SpanKind says what a lane was doing during a Span.
type SpanKind uint8

const (
	// Waiting is an Acquire between the moment it began to wait and its
	// grant.
	Waiting SpanKind = iota
	// Holding is the time a lane held permits of one semaphore, from the
	// grant until it released them all.
	Holding
	// Failed is a wait that ended in an error: canceled context, closed
	// semaphore, or a request that no longer fits a shrunk size.
	Failed
)

// Span is an interval of one lane's time spent on one semaphore.
type Span struct {
	Kind SpanKind
	// Sem is the name the semaphore was watched under.
	Sem string
	// N is the weight asked for (Waiting, Failed) or the most permits held
	// at once during the span (Holding).
	N        int64
	From, To time.Duration
	// Err is the error the wait ended with (Failed only).
	Err error
}

// MarkKind says what happened at a Mark.
type MarkKind uint8

const (
	// Woke marks a wake-up that did not end the wait: the strategy looked
	// at the waiter's context again and went back to sleep.
	Woke MarkKind = iota
	// Granted marks the end of a wait that got its permits.
	Granted
	// Refused marks an Acquire or TryAcquire that failed, after waiting or
	// at once.
	Refused
	// Released marks a Release.
	Released
)

// Mark is an instant in one lane.
type Mark struct {
	Kind MarkKind
	Sem  string
	N    int64
	At   time.Duration
	// Err is the error of a Refused mark.
	Err error
}

// errTryFailed is the error recorded for a TryAcquire that reported false.
var errTryFailed = errors.New("timeline: TryAcquire reported false")

// opKind is the method a recorded call was made to.
type opKind uint8

const (
	opAcquire opKind = iota
	opTry
	opRelease
)

// op is one recorded call.
type op struct {
	kind    opKind
	sem     string
	n       int64
	err     error
	at, end time.Time // called, returned

	waited             bool
	waitStart, waitEnd time.Time
	lookups            []time.Time // context Err calls by the caller's goroutine
}

// laneLog is one lane's calls in the order they returned; a lane is used
// by one goroutine at a time, so that is their order in time.
type laneLog struct {
	name string
	ops  []op
}

// Timeline returns what the recorder saw until now.
func (r *Recorder) Timeline() Timeline {
	r.mu.Lock()
	defer r.mu.Unlock()
	tl := Timeline{End: r.since(time.Now())}
	for _, l := range r.lanes {
		tl.Lanes = append(tl.Lanes, r.line(l, tl.End))
	}
	return tl
}

// Lane returns the lane called name, and whether there is one.
func (tl Timeline) Lane(name string) (LaneLine, bool) {
	for _, l := range tl.Lanes {
		if l.Name == name {
			return l, true
		}
	}
	return LaneLine{}, false
}

// hold is a Holding span being built: permits of one semaphore held by
// one lane.
type hold struct {
	held int64
	span Span
}

// line turns a lane's calls into spans and marks; holds still open at end
// end there.
func (r *Recorder) line(l *laneLog, end time.Duration) LaneLine {
	line := LaneLine{Name: l.name}
	holds := make(map[string]*hold)
	var order []string // semaphores in order of first hold, for a stable result
	take := func(sem string, n int64, at time.Duration) {
		h, ok := holds[sem]
		if !ok {
			h = &hold{}
			holds[sem] = h
			order = append(order, sem)
		}
		if h.held == 0 {
			h.span = Span{Kind: Holding, Sem: sem, From: at}
		}
		h.held += n
		h.span.N = max(h.span.N, h.held)
	}
	give := func(sem string, n int64, at time.Duration) {
		h := holds[sem]
		if h == nil || h.held == 0 {
			return // released through another lane's handle: nothing to close here
		}
		h.held = max(h.held-n, 0)
		if h.held == 0 {
			h.span.To = at
			line.Spans = append(line.Spans, h.span)
		}
	}
	for _, o := range l.ops {
		switch o.kind {
		case opAcquire:
			line.add(r.acquired(o))
			if o.err == nil && o.n > 0 {
				take(o.sem, o.n, r.since(o.end))
			}
		case opTry:
			if o.err != nil {
				line.Marks = append(line.Marks, Mark{Kind: Refused, Sem: o.sem, N: o.n, At: r.since(o.at), Err: o.err})
			} else if o.n > 0 {
				take(o.sem, o.n, r.since(o.at))
			}
		case opRelease:
			line.Marks = append(line.Marks, Mark{Kind: Released, Sem: o.sem, N: o.n, At: r.since(o.at)})
			give(o.sem, o.n, r.since(o.at))
		}
	}
	for _, sem := range order {
		if h := holds[sem]; h.held > 0 {
			h.span.To = end
			line.Spans = append(line.Spans, h.span)
		}
	}
	line.sort()
	return line
}

// acquired returns the spans and marks of one Acquire.
func (r *Recorder) acquired(o op) ([]Span, []Mark) {
	var spans []Span
	var marks []Mark
	if o.waited {
		kind := Waiting
		if o.err != nil {
			kind = Failed
		}
		spans = append(spans, Span{Kind: kind, Sem: o.sem, N: o.n, From: r.since(o.waitStart), To: r.since(o.waitEnd), Err: o.err})
		marks = append(marks, r.wakeUps(o)...)
	}
	switch {
	case o.err != nil:
		marks = append(marks, Mark{Kind: Refused, Sem: o.sem, N: o.n, At: r.since(o.end), Err: o.err})
	case o.waited:
		marks = append(marks, Mark{Kind: Granted, Sem: o.sem, N: o.n, At: r.since(o.end)})
	}
	return spans, marks
}

// wakeUps returns a Woke mark for each instant strictly inside the wait of
// o at which the waiter looked at its context. A waiter may look more than
// once in one wake-up (spinsem's does), and in a testing/synctest bubble
// every look of one wake-up happens at one instant, so an instant is one
// wake-up.
func (r *Recorder) wakeUps(o op) []Mark {
	var marks []Mark
	var last time.Time
	for _, t := range o.lookups {
		if t.After(o.waitStart) && t.Before(o.waitEnd) && !t.Equal(last) {
			marks = append(marks, Mark{Kind: Woke, Sem: o.sem, N: o.n, At: r.since(t)})
			last = t
		}
	}
	return marks
}

// add appends spans and marks to the line.
func (line *LaneLine) add(spans []Span, marks []Mark) {
	line.Spans = append(line.Spans, spans...)
	line.Marks = append(line.Marks, marks...)
}
