package redissem

// WithRefreshPaused makes the handle skip every refresh while paused
// returns true, as if it were cut off from Redis. For the package's tests
// only.
func WithRefreshPaused(paused func() bool) Option {
	return func(o *options) { o.hooks = &hooks{skipRefresh: paused} }
}
