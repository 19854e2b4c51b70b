package weighted

// The state: a word the fast paths read and swap without the mutex, and,
// while its slow bit sends every call to the mutex, a count under it.

// slow is the low bit of the state word: set while the wait queue is not
// empty, the semaphore is closed, or permits are owed after a shrink; the
// fast paths are closed while it is set. The permits that are free are the
// rest of the word while the bit is clear; while it is set they are kept
// in the semaphore's count instead, and the rest of the word is stale.
const slow = 1

// freeNow, called with s.mu held, returns the number of free permits: the
// state word's while the slow bit is clear, and the count's while it is set.
func (s *Semaphore) freeNow() int64 {
	if st := s.state.Load(); st&slow == 0 {
		return free(st)
	}
	return s.count
}

// free returns the number of free permits in a state word. The shift is
// unsigned, so a size up to math.MaxInt64 fits.
func free(state uint64) int64 { return int64(state >> 1) }

// takeFrom takes n permits if the state is still old, in which they are
// free, and reports whether it did.
//
// An Acquire looks at its context between its load of old and this swap,
// never before the load, on its fast path and in acquireSlow alike. Looked at before the load, the context could be
// canceled, and the permits freed by a Release, between the look and the
// load: a grant after a cancellation that came first. Looked at after it,
// a swap that succeeds finds the word equal to old, but not necessarily
// unchanged since the load: other goroutines may have taken permits and
// given them back within those few instructions (the word compares by
// value, with no generation in it). An Acquire whose context was canceled
// after its look, and whose cancel returned before its swap, can then
// still return nil holding its permits, though they were not free all the
// time its context was not done. The permit count is never wrong: the swap
// takes from a word that holds n free permits, as any grant does.
func (s *Semaphore) takeFrom(old uint64, n int64) bool {
	return s.state.CompareAndSwap(old, old-uint64(n)<<1)
}

// freeze, called with s.mu held, sets the slow bit unless it is set
// already, and returns the state: the free permits shifted left by one,
// with the slow bit set. From then on no fast path changes the word. Only
// holders of the mutex clear the bit, so a load that finds it set needs no
// read-modify-write, and takes the free permits from the count. The frozen
// test hook runs in grant, which every caller calls before it publishes,
// so that freeze is inlined.
func (s *Semaphore) freeze() uint64 {
	if st := s.state.Load(); st&slow != 0 {
		return uint64(s.count)<<1 | slow
	}
	return s.state.Or(slow) | slow
}

// publish, called with s.mu held after freeze, makes st the state. While
// st keeps the slow bit set, the word, whose bit is set already, is not
// written: the free permits go to the count, on the cache lines the
// hand-off writes anyway, and every other processor's copy of the word
// stays valid for its fast-path loads, which look only at the bit
// (lab/handoff's BenchmarkHandOff). Once the bit clears, the word holds
// the free permits again and the fast paths open.
func (s *Semaphore) publish(st uint64) {
	if st&slow != 0 {
		s.count = free(st)
		return
	}
	s.state.Store(st)
}

// held, called with s.mu held, returns the number of permits held when the
// state word, frozen, is st.
func (s *Semaphore) held(st uint64) int64 {
	return s.size.Load() - free(st) + s.owed
}
