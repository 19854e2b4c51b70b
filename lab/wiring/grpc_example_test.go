package wiring_test

import (
	"context"
	"fmt"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/semacat/sem/adaptive"
	"github.com/semacat/sem/weighted"
)

// limitUnary returns a gRPC unary server interceptor that serves a call
// while it holds a permit of l, refuses it at once with ResourceExhausted
// when l is full, and tells l whether the call succeeded: a failure is a
// status that says the server is overloaded, or a panic. Install it with
// grpc.NewServer(grpc.UnaryInterceptor(limitUnary(l))).
func limitUnary(l *adaptive.Limiter) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		tok, ok := l.TryStart(1)
		if !ok {
			return nil, status.Error(codes.ResourceExhausted, "server busy: retry later")
		}
		ok = false // until the handler returns: a panic is a failure
		defer func() { tok.Done(ok) }()
		resp, err := handler(ctx, req)
		ok = !overloaded(err)
		return resp, err
	}
}

// overloaded reports whether err says the server could not cope, rather
// than that the request was wrong.
func overloaded(err error) bool {
	switch status.Code(err) {
	case codes.Unavailable, codes.ResourceExhausted, codes.DeadlineExceeded, codes.Internal:
		return true
	}
	return false
}

// A gRPC server limits its unary calls with an adaptive limiter; here the
// interceptor is called directly, as the server would call it.
func Example_gRPC() {
	l := adaptive.New(weighted.New(1), 2, &adaptive.AIMD{})
	intercept := limitUnary(l)
	ctx := context.Background()
	info := &grpc.UnaryServerInfo{FullMethod: "/search.Search/Query"}

	ok := func(context.Context, any) (any, error) { return "result", nil }
	_, err := intercept(ctx, "q", info, ok)
	fmt.Println(status.Code(err))

	held1, _ := l.TryStart(1) // the server is full
	held2, _ := l.TryStart(1)
	_, err = intercept(ctx, "q", info, ok)
	fmt.Println(status.Code(err))
	held1.Done(true)
	held2.Done(true)
	// Output:
	// OK
	// ResourceExhausted
}
