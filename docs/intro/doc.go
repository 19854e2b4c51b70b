// Package intro holds the runnable programs of docs/intro.md, the course's
// first page: what a semaphore is, Dijkstra's P and V, counting and binary
// semaphores, the mutex, signalling and multiplex patterns, and why a
// Release happens before the Acquire it enables. Every program is an
// example or a test, run by go test.
package intro
