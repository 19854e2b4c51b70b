package redissem

// WithRefreshPaused makes the handle skip every refresh while paused
// returns true, as if it were cut off from Redis. For the package's tests
// only.
func WithRefreshPaused(paused func() bool) Option {
	return func(o *options) { o.testHooks().skipRefresh = paused }
}

// WithGrantHeard makes a waiting Acquire call heard when it hears of its
// grant, before it takes it over, so that a test can make it hear late.
// For the package's tests only.
func WithGrantHeard(heard func()) Option {
	return func(o *options) { o.testHooks().heardGrant = heard }
}

// testHooks returns o's hooks, made if need be.
func (o *options) testHooks() *hooks {
	if o.hooks == nil {
		o.hooks = &hooks{}
	}
	return o.hooks
}
