package semtest

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"golang.org/x/sync/semaphore"

	"github.com/semacat/sem"
	"github.com/semacat/sem/chansem"
)

// The package name that panics must contain is read off the constructor's
// type.
func TestPackageName(t *testing.T) {
	assert.Equal(t, "chansem", packageOf(chansem.New(1)))
	assert.Equal(t, "semaphore", packageOf(semaphore.NewWeighted(1)))
	for path, want := range map[string]string{
		"github.com/semacat/sem/chansem": "chansem",
		"example.com/fastsem/v2":         "fastsem",
		"v3":                             "v3",
		"main":                           "main",
	} {
		assert.Equal(t, want, lastPathElement(path), "path %q", path)
	}
	c := &config{newSem: func(int64) sem.Semaphore { panic("TODO: New") }}
	assert.Nil(t, c.probe(), "a constructor that panics gives no semaphore to probe")
}

// The rows of an optional capability run only when it is present, and are
// skipped without running otherwise; x/sync offers none of the interfaces.
func TestOptionalRows(t *testing.T) {
	for _, present := range []bool{false, true} {
		ran := false
		t.Run(fmt.Sprintf("present=%v", present), func(t *testing.T) {
			optionalRows(t, present, "absent", []row{{"Row", func(*testing.T) { ran = true }}})
		})
		assert.Equal(t, present, ran, "present %v", present)
	}
	assert.Equal(t, implements{}, implementsOf(semaphore.NewWeighted(1)))
}
