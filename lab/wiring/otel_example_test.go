package wiring_test

import (
	"context"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/semacat/sem"
	"github.com/semacat/sem/adaptive"
	"github.com/semacat/sem/weighted"
)

// An adaptive limiter's limit and its semaphore's free permits as
// OpenTelemetry gauges, observed at each collection, and the waits as a
// histogram fed by sem.Observer's OnWait.
func Example_openTelemetry() {
	reader := sdkmetric.NewManualReader() // an OTLP exporter's reader in a program
	meter := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)).Meter("search")

	w := weighted.New(1)
	l := adaptive.New(w, 10, &adaptive.Vegas{}, adaptive.WithBounds(2, 200))
	_, _ = meter.Int64ObservableGauge("search.limit", metric.WithInt64Callback(
		func(_ context.Context, o metric.Int64Observer) error { o.Observe(l.Limit()); return nil }))
	_, _ = meter.Int64ObservableGauge("search.permits.available", metric.WithInt64Callback(
		func(_ context.Context, o metric.Int64Observer) error { o.Observe(w.Available()); return nil }))
	waits, _ := meter.Float64Histogram("search.wait", metric.WithUnit("s"))
	w.OnWait(func(e sem.WaitEvent) { waits.Record(context.Background(), e.Waited().Seconds()) })

	// Some use: 4 requests in flight, and one that waits and times out.
	for range 4 {
		l.TryStart(1)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	_, _ = l.Start(ctx, 7)

	var rm metricdata.ResourceMetrics
	_ = reader.Collect(context.Background(), &rm)
	for _, m := range rm.ScopeMetrics[0].Metrics {
		switch d := m.Data.(type) {
		case metricdata.Gauge[int64]:
			fmt.Println(m.Name, d.DataPoints[0].Value)
		case metricdata.Histogram[float64]:
			fmt.Println(m.Name, "count", d.DataPoints[0].Count)
		}
	}
	// Unordered output:
	// search.limit 10
	// search.permits.available 6
	// search.wait count 1
}
