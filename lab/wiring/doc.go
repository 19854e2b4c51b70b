// Package wiring shows, in examples that run, how semacat's semaphores and
// adaptive limiter plug into the systems around a service: Prometheus and
// OpenTelemetry metrics, and a gRPC server. Each is a few lines to copy;
// none of these dependencies reaches the core module, whose own metrics
// export (package semexpvar) needs only the standard library.
package wiring
