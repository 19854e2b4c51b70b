package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/semacat/sem/lab/faults/history"
)

// SpecEnv is the environment variable that carries a worker process's
// [Spec], as JSON.
const SpecEnv = "FAULTS_WORKER_SPEC"

// Spec is everything a worker process needs: its loop, the strategy and
// how to reach its server, and its history file.
type Spec struct {
	Config
	Strategy    string        // "etcd" or "redis"
	Endpoints   []string      // etcd client URLs, Redis addresses, or Sentinel addresses
	MasterName  string        // with Sentinel: the monitored primary's name
	Semaphore   string        // the semaphore's name
	Size        int64         // the semaphore's size
	Lease       time.Duration // the lease of every grant
	Replicas    int           // redissem: replicas that must confirm each grant and refresh (WithReplicas), 0 for none
	ReadTimeout time.Duration // redissem: the client's read timeout, after which go-redis retries; 0 for a second
	// ContextTimeout (redissem): go-redis gives up a reply at the deadline
	// of the round trip's context (ContextTimeoutEnabled) and closes the
	// connection, instead of waiting out the read timeout.
	ContextTimeout bool
	// ForgetWithdrawals is broken (redissem): after an acquire fails, the
	// worker deletes the tombstones its handle's withdrawals leave in Redis,
	// as if redissem left none.
	ForgetWithdrawals bool
	// Decoy (redissem): the handle is made on a Session, which also has a
	// handle on this other semaphore, of size DecoySize, holding one of
	// its permits for the whole run: its grant is refreshed in the same
	// rounds as the worker's.
	Decoy     string
	DecoySize int64
	History   string // the worker's history file
}

// Env returns the environment entry that hands s to a worker process.
func (s Spec) Env() string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("worker: Spec.Env: %v", err)) // a Spec always marshals
	}
	return SpecEnv + "=" + string(b)
}

// Main runs the worker described by the environment and returns the
// process's exit code.
func Main() int {
	if err := main(); err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		return 1
	}
	return 0
}

func main() error {
	var s Spec
	if err := json.Unmarshal([]byte(os.Getenv(SpecEnv)), &s); err != nil {
		return fmt.Errorf("reading %s: %w", SpecEnv, err)
	}
	log, err := history.Create(s.History, s.Name)
	if err != nil {
		return err
	}
	defer log.Close()
	a, err := openRetrying(s, log)
	if err != nil {
		return errors.Join(err, log.Log(history.Event{Kind: history.Exit}))
	}
	defer a.Close()
	return Run(context.Background(), a, s.Config, log)
}

// openRetrying opens the strategy handle, retrying for the worker's run: a
// server may be unreachable for a moment when the worker starts (a
// Sentinel still settling). Each failure is logged.
func openRetrying(s Spec, log *history.Writer) (Acquirer, error) {
	end := time.Now().Add(s.Duration)
	for {
		a, err := open(s)
		if err == nil {
			return a, nil
		}
		if lerr := log.Log(history.Event{Kind: history.Error, Err: err.Error()}); lerr != nil || time.Now().After(end) {
			return nil, errors.Join(err, lerr)
		}
		pause(context.Background(), retryPause)
	}
}

// open returns the strategy handle s asks for.
func open(s Spec) (Acquirer, error) {
	switch s.Strategy {
	case "etcd":
		return openEtcd(s)
	case "redis":
		return openRedis(s)
	default:
		return nil, fmt.Errorf("unknown strategy %q", s.Strategy)
	}
}
