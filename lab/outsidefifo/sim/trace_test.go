package sim

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/semacat/sem/adaptive"
	"github.com/semacat/sem/weighted"
)

var _ = adaptive.New
var _ = weighted.New

// TestTrace runs one scenario (TRACE_SC exact name), seed TRACE_SEED, algorithm TRACE_ALG,
// mode TRACE_WAIT=1, and logs the limit every 500 ms.
func TestTrace(t *testing.T) {
	name := os.Getenv("TRACE_SC")
	if name == "" {
		t.Skip()
	}
	seed, _ := strconv.ParseUint(os.Getenv("TRACE_SEED"), 10, 64)
	for _, sc := range Scenarios() {
		if sc.Name != name {
			continue
		}
		tr := Trace(sc, seed)
		c := Contender{Name: os.Getenv("TRACE_ALG"), Wait: os.Getenv("TRACE_WAIT") == "1"}
		synctest.Test(t, func(t *testing.T) {
			var sb strings.Builder
			traceHook = func(l *adaptive.Limiter, t0 time.Time) {
				go func() {
					for i := 0; i < int(sc.Length/(500*time.Millisecond)); i++ {
						time.Sleep(500 * time.Millisecond)
						fmt.Fprintf(&sb, "%.1fs:%d ", time.Since(t0).Seconds(), l.Limit())
					}
				}()
			}
			r := Run(sc, tr, c, seed)
			traceHook = nil
			time.Sleep(sc.Length)
			t.Logf("%+v\n%s", r, sb.String())
		})
	}
}
