// Package history is the format of the fault-injection histories: one
// append-only JSON-lines file per process (a worker, the fenced store, the
// nemesis that injects faults), one event per line.
//
// Each line is written with a single write and then fsync'd, so a process
// killed with SIGKILL loses at most the line it was writing, and a reader
// drops a torn last line instead of failing. Events carry two clocks: the
// wall clock, comparable across the processes of one machine, which the
// checker orders events of different processes by; and the monotonic time
// since the writer was created, which orders the events of one process even
// if the wall clock steps.
package history

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// Kind says what an event records.
type Kind string

// The kinds of events the workers, the store and the nemesis write.
const (
	// AcquireStart: a worker calls acquire for Weight permits.
	AcquireStart Kind = "acquire-start"
	// Granted: the acquire returned a grant with Token; CanSignal says
	// whether the grant's Done channel can fire at all.
	Granted Kind = "granted"
	// AcquireFailed: the acquire returned the error Err.
	AcquireFailed Kind = "acquire-failed"
	// DoneFired: the worker saw the grant's Done channel closed, or its
	// Err (then in Err) when it checked before acting.
	DoneFired Kind = "done-fired"
	// DoneOpen: the worker checked its grant right before acting (a write)
	// and found it still trusted: Done open, Err nil.
	DoneOpen Kind = "done-open"
	// WriteAccepted and WriteRejected: a fenced write with Token, as the
	// worker saw its answer, or (Worker "store") as the store decided it.
	WriteAccepted Kind = "write-accepted"
	WriteRejected Kind = "write-rejected"
	// ReleaseStart: the worker stops using the grant and calls release.
	ReleaseStart Kind = "release-start"
	// Released: release returned; Err is its error, if any.
	Released Kind = "released"
	// Error: an operation other than acquire and release failed with Err.
	Error Kind = "error"
	// Exit: the worker finished its run and is about to exit.
	Exit Kind = "exit"
	// Probe: an observer asked the server how many permits are in use;
	// Weight is its answer, Since when it asked (Wall: when the answer
	// came).
	Probe Kind = "probe"
	// Fault: the nemesis injected Detail (see the Fault* constants) on
	// Target, a worker or a server.
	Fault Kind = "fault"
)

// The faults the nemesis records in Detail of a Fault event.
const (
	FaultKill       = "kill"        // SIGKILL of a worker process
	FaultStop       = "stop"        // SIGSTOP of a worker process
	FaultCont       = "cont"        // SIGCONT of a stopped worker
	FaultPartition  = "partition"   // the worker's connection to its server is blackholed
	FaultHeal       = "heal"        // the partition ends
	FaultServer     = "server"      // a server was killed (Target names it): every worker is affected
	FaultRestart    = "restart"     // a killed server is back
	FaultStall      = "stall"       // a server stops answering for a while (DEBUG SLEEP), then goes on where it was
	FaultStallEnd   = "stall-end"   // the stalled server answers again
	FaultHold       = "hold"        // a request of the worker Target is held on its way to the server
	FaultDelivered  = "delivered"   // the held request reached the server
	FaultClock      = "clock-step"  // the server's wall clock stepped (Target: server and step), its monotonic clock did not
	FaultFull       = "full"        // the server refuses writes that need memory (maxmemory reached, noeviction)
	FaultFreed      = "freed"       // the full server has memory again
	FaultMigrating  = "migrating"   // a Cluster slot is marked in migration, no key moved yet
	FaultStable     = "stable"      // the migration was canceled: the slot is stable again
	FaultStopServer = "stop-server" // a server is stalled (SIGSTOP of its process, Target names it)
	FaultContServer = "cont-server" // the stalled server resumes
)

// Event is one line of a history.
type Event struct {
	Worker    string    `json:"worker"`
	Kind      Kind      `json:"kind"`
	Wall      time.Time `json:"wall"`
	Mono      int64     `json:"mono"` // nanoseconds since the writer was created
	Weight    int64     `json:"weight,omitempty"`
	Token     int64     `json:"token,omitempty"`
	CanSignal bool      `json:"can_signal,omitempty"`
	Key       string    `json:"key,omitempty"`    // the fenced store's key
	Target    string    `json:"target,omitempty"` // the worker or server a fault hit
	Detail    string    `json:"detail,omitempty"`
	Err       string    `json:"err,omitempty"`
	Since     time.Time `json:"since,omitzero"` // a probe's question
}

// Writer appends the events of one process to its history file.
type Writer struct {
	worker string
	start  time.Time

	mu sync.Mutex
	f  *os.File
}

// Create opens (creating if needed) the history file at path for appending
// the events of worker.
func Create(path, worker string) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	return &Writer{worker: worker, start: time.Now(), f: f}, nil
}

// Log stamps e with the writer's worker and both clocks, appends it as one
// line and fsyncs the file before returning.
func (w *Writer) Log(e Event) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := time.Now()
	e.Worker = w.worker
	e.Wall = now
	e.Mono = int64(now.Sub(w.start))
	line, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	if _, err := w.f.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("history: appending to %s: %w", w.f.Name(), err)
	}
	if err := w.f.Sync(); err != nil {
		return fmt.Errorf("history: fsync of %s: %w", w.f.Name(), err)
	}
	return nil
}

// Close closes the file.
func (w *Writer) Close() error { return w.f.Close() }

// Read returns the events of the history file at path, in file order. A last
// line without its newline, left by a process killed while writing it, is
// dropped; any other line that does not parse is an error.
func Read(path string) ([]Event, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	defer f.Close()
	r := bufio.NewReader(f)
	var events []Event
	for n := 1; ; n++ {
		line, err := r.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			return events, nil // a torn last line, if any, is dropped
		}
		if err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
		var e Event
		if err := json.Unmarshal(line, &e); err != nil {
			return nil, fmt.Errorf("history: %s line %d: %w", path, n, err)
		}
		events = append(events, e)
	}
}
