package etcdsem_test

import (
	"bufio"
	"context"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem/etcdsem"
)

// An idle handle (no Acquire waiting) on the one member left of three
// backs off while there is no quorum, rather than reading the size key
// again and again: its size watch ends when the member loses its leader,
// and the handle reads the key once per pause, each read bounded by the
// timeout. Counted by the member itself (its Range calls, on /metrics)
// over a window after the two others were killed; the count must also
// be at least one, which shows the watch did end and the loop did read.
func TestNoQuorumIdleHandleBacksOff(t *testing.T) {
	t.Parallel()
	c, err := startCluster(server.bin, t.TempDir(), 3)
	require.NoError(t, err)
	defer c.close()
	cl, err := c.client(2)
	require.NoError(t, err)
	defer cl.Close()
	s, err := etcdsem.New(context.Background(), cl, uniqueName(t), 1, etcdsem.WithLease(time.Minute))
	require.NoError(t, err)
	defer s.Close()

	c.signal(0, syscall.SIGKILL)
	c.signal(1, syscall.SIGKILL)
	before := rangeCalls(t, c.Endpoints[2])
	// The member loses its leader within an election timeout, and ends
	// its watches a few election timeouts after that.
	const window = 15 * time.Second
	time.Sleep(window) // counting another process's requests over a span of real time
	n := rangeCalls(t, c.Endpoints[2]) - before
	t.Logf("the survivor served %d Range calls in the %v after the kill", n, window)
	assert.GreaterOrEqual(t, n, 1, "the size watch never ended, so the test saw no retry at all")
	assert.LessOrEqual(t, n, 15, "an idle handle without a quorum read the size key more than once a second")
}

// rangeCalls returns how many Range calls the member at endpoint has
// started, from its metrics.
func rangeCalls(t *testing.T, endpoint string) int {
	t.Helper()
	resp, err := http.Get(endpoint + "/metrics")
	require.NoError(t, err)
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "grpc_server_started_total{") && strings.Contains(line, `grpc_method="Range"`) {
			n, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
			require.NoError(t, err, line)
			return int(n)
		}
	}
	require.NoError(t, sc.Err())
	return 0
}
