package condsem_test

import (
	"testing"

	"github.com/semacat/sem/condsem"
	"github.com/semacat/sem/internal/acquiretest"
)

// Resize, Close and observation are checked by semtest.Run's Resize, Close
// and Observe rows (TestConformance); these are the checks it leaves out.
func TestOptional(t *testing.T) {
	for _, v := range []struct {
		name string
		new  func(size int64) acquiretest.Optional
	}{
		{"plain", func(size int64) acquiretest.Optional { return condsem.New(size) }},
		{"fair", func(size int64) acquiretest.Optional { return condsem.NewFair(size) }},
	} {
		t.Run(v.name, func(t *testing.T) { acquiretest.CheckOptional(t, v.new) })
	}
}
