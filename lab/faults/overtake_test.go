package faults_test

import (
	"bytes"
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem/lab/faults/checker"
	"github.com/semacat/sem/lab/faults/history"
	"github.com/semacat/sem/lab/faults/servers"
	"github.com/semacat/sem/lab/faults/worker"
	"github.com/semacat/sem/redissem"
)

// acquireOnTheWire is what only redissem's acquire requests carry on the
// wire: their mode, "wait", as RESP encodes an argument.
var acquireOnTheWire = []byte("\r\n$4\r\nwait\r\n")

// In the overtake scenario, each round trip of a worker lasts at most
// overtakeTimeout, and the relay holds a request for overtakeHold, long
// enough for its worker to give up and withdraw it first.
const (
	overtakeTimeout = lease / 4
	overtakeHold    = lease / 2
)

// A worker withdraws a held request only if its round trip gives up and
// the withdrawal reaches Redis within overtakeHold, which a loaded machine
// can delay: then the late request is answered in order and nothing is
// overtaken. The scenario that must see a refusal injects up to
// overtakeRetries more faults until one is refused, and its workers run
// long enough for them.
const overtakeRetries = 3

// refusedAsWithdrawn is how Redis answers an acquire that finds its own
// withdrawal's tombstone (RESP3: an array of three, the first -2).
var refusedAsWithdrawn = []byte("*3\r\n:-2\r\n")

// TestRedisOvertake makes acquire requests overtake their withdrawal: a
// relay between each worker and redis-server holds a worker's next acquire
// request for longer than its round trip may last, so the worker gives up,
// closes that connection, and withdraws the request on another one; the
// relay then delivers the request, after the withdrawal. redissem must
// refuse it (the tombstone of the withdrawal), and a probe of the server
// must never see permits in use that no worker could hold. The broken
// variant's workers delete the tombstones after a failed acquire: the late
// request is granted to nobody, and the checker must catch it.
func TestRedisOvertake(t *testing.T) {
	t.Parallel()
	variants := []struct {
		name         string
		opts         []option
		untilRefused bool // inject faults until Redis refuses a late request
		expect       func(t *testing.T, rep *checker.Report, refused int)
	}{
		{"overtake", nil, true, func(t *testing.T, rep *checker.Report, refused int) {
			assert.Empty(t, rep.Violations)
			assert.Positive(t, rep.Overtaken, "no request reached Redis after its withdrawal: the scenario did not reorder")
			assert.Equal(t, rep.Overtaken, refused, "Redis did not refuse every request that came after its withdrawal")
		}},
		{"broken-no-tombstones", []option{func(s *worker.Spec) { s.ForgetWithdrawals = true }}, false,
			func(t *testing.T, rep *checker.Report, refused int) {
				assert.Positive(t, rep.Overtaken, "no request reached Redis after its withdrawal: the scenario did not reorder")
				assert.Positive(t, rep.Count(checker.GhostGrant), "the checker missed the permits granted to nobody")
			}},
	}
	srv := servers.StartRedis(t, t.TempDir())
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			r := newRun(t, "redis")
			r.relayed = true
			r.start(currentMode().workers, []string{srv.Addr()}, nil, append([]option{func(s *worker.Spec) {
				s.ReleaseTimeout, s.ContextTimeout = overtakeTimeout, true
			}, runFor(currentMode().duration + overtakeRetries*2*lease)}, v.opts...)...)
			r.probeRedis(srv.Addr())
			refused := 0
			faults := currentMode().faults
			for i := 0; i < faults || v.untilRefused && refused == 0 && i < faults+overtakeRetries; i++ {
				time.Sleep(lease / 2)
				if reply := r.overtake(r.procs[i%len(r.procs)]); bytes.HasPrefix(reply, refusedAsWithdrawn) {
					refused++
				}
			}
			v.expect(t, r.finish(), refused)
		})
	}
}

// overtake holds p's next acquire request in its relay for overtakeHold,
// and returns Redis's answer to it once delivered.
func (r *run) overtake(p *proc) []byte {
	held := p.relays[0].Hold(acquireOnTheWire, overtakeHold)
	select {
	case <-held.Caught():
	case <-time.After(3 * lease):
		r.t.Fatalf("%s sent no acquire request within %v", p.name, 3*lease)
	}
	r.fault(history.FaultHold, p.name)
	<-held.Delivered() // within overtakeHold
	r.fault(history.FaultDelivered, p.name)
	select {
	case <-held.Answered():
		r.t.Logf("Redis answered %s's late request: %q", p.name, held.Reply())
		return held.Reply()
	case <-time.After(lease):
		r.t.Logf("Redis did not answer %s's late request", p.name)
		return nil
	}
}

// probeEvery is how often probeRedis asks how many permits are in use.
const probeEvery = 50 * time.Millisecond

// probeRedis asks redis-server at addr, directly, how many permits of the
// run's semaphore are in use, every probeEvery until finish (or the end of
// the test), and logs each answer in the run's probe history.
func (r *run) probeRedis(addr string) {
	path := filepath.Join(r.dir, "probe.jsonl")
	log, err := history.Create(path, "probe")
	require.NoError(r.t, err)
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	s, err := redissem.New(context.Background(), rdb, r.name, 1, redissem.WithLease(lease))
	require.NoError(r.t, err)
	r.files = append(r.files, path)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(probeEvery)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			since := time.Now()
			free, err := s.Available(context.Background())
			if err != nil {
				r.t.Logf("probe: %v", err)
				continue
			}
			assert.NoError(r.t, log.Log(history.Event{Kind: history.Probe, Since: since, Weight: checkConfig.Size - free}))
		}
	}()
	r.stopProbes = sync.OnceFunc(func() {
		close(stop)
		wg.Wait()
		_ = s.Close()
		_ = rdb.Close()
		_ = log.Close()
	})
	r.t.Cleanup(r.stopProbes) // if the scenario fails before finish
}
