package redissem

import (
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/redis/go-redis/v9"
)

// The argument checks of New and Release: a programmer's error panics with a
// message naming the package, the method and the value. Acquire's weight
// check lives beside it, in acquire.go.

func checkSize(size int64) {
	if size < 1 {
		panic(fmt.Sprintf("%s: New(%d): size must be at least 1", pkg, size))
	}
}

func overRelease(n, held int64) {
	panic(fmt.Sprintf("%s: Release(%d): released more than held (%d held)", pkg, n, held))
}

// checkName panics unless name can stand in the hash tag of the
// semaphore's keys: not empty (an empty tag hashes each key on its own, so
// they land in different Cluster slots), and without braces or control
// characters.
func checkName(name string) {
	switch {
	case name == "":
		panic(fmt.Sprintf("%s: New(%q): empty name", pkg, name))
	case strings.ContainsAny(name, "{}"):
		panic(fmt.Sprintf("%s: New(%q): the name holds a brace, which would break its keys' hash tag", pkg, name))
	case strings.ContainsFunc(name, unicode.IsControl):
		panic(fmt.Sprintf("%s: New(%q): the name holds a control character", pkg, name))
	}
}

// checkReplicasClient refuses WithReplicas on a client whose WAIT could
// reach another server than the semaphore's keys.
func checkReplicasClient(rdb redis.UniversalClient, replicas int) error {
	switch rdb.(type) {
	case *redis.Client, *redis.ClusterClient:
		return nil
	}
	if replicas == 0 {
		return nil
	}
	return errors.New("WithReplicas needs a *redis.Client or a *redis.ClusterClient, whose WAIT can reach the master " +
		"that holds the semaphore's keys")
}
