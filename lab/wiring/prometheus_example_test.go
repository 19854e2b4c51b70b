package wiring_test

import (
	"context"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/semacat/sem"
	"github.com/semacat/sem/weighted"
)

// A semaphore's numbers as Prometheus metrics: gauges read at each scrape,
// and a histogram of the waits fed by sem.Observer's OnWait.
func Example_prometheus() {
	s := weighted.New(8)
	reg := prometheus.NewRegistry() // prometheus.DefaultRegisterer in a program

	available := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "renders_permits_available", Help: "Free permits of the render semaphore.",
	}, func() float64 { return float64(s.Available()) })
	waiting := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "renders_waiting_requests", Help: "Acquire calls waiting for the render semaphore.",
	}, func() float64 { n, _ := s.Waiting(); return float64(n) })
	waits := prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "renders_wait_seconds", Help: "How long Acquire waited for the render semaphore.",
	})
	reg.MustRegister(available, waiting, waits)
	s.OnWait(func(e sem.WaitEvent) { waits.Observe(e.Waited().Seconds()) })

	// Some use: 5 permits held, and one Acquire that waits and times out.
	s.TryAcquire(5)
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	_ = s.Acquire(ctx, 4)

	fmt.Println("available:", testutil.ToFloat64(available), "waiting:", testutil.ToFloat64(waiting))
	mfs, _ := reg.Gather()
	for _, mf := range mfs {
		if mf.GetName() == "renders_wait_seconds" {
			fmt.Println("waits:", mf.GetMetric()[0].GetHistogram().GetSampleCount())
		}
	}
	// Output:
	// available: 3 waiting: 0
	// waits: 1
}
