package wiring_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"google.golang.org/grpc"

	"github.com/semacat/sem/adaptive"
	"github.com/semacat/sem/weighted"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// The interceptor gives the permit back when the handler panics, so that a
// panic recovered by the server does not shrink it for good.
func TestInterceptorReleasesOnPanic(t *testing.T) {
	l := adaptive.New(weighted.New(1), 1, &adaptive.AIMD{})
	intercept := limitUnary(l)
	boom := func(context.Context, any) (any, error) { panic("boom") }
	assert.Panics(t, func() { _, _ = intercept(t.Context(), nil, &grpc.UnaryServerInfo{}, boom) })
	tok, ok := l.TryStart(1)
	require.True(t, ok, "the permit came back")
	tok.Done(true)
}
