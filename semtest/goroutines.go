package semtest

import (
	"bytes"
	"regexp"
	"runtime"
)

// bubbleHeader matches the bubble a goroutine's stack header names, as in
// "goroutine 21 [running, synctest bubble 1]:".
var bubbleHeader = regexp.MustCompile(`(?m)^goroutine \d+ \[[^\]]*synctest bubble (\d+)\]:`)

// bubbleGoroutines counts the goroutines of the calling goroutine's
// synctest bubble. runtime.NumGoroutine would count the whole process, so
// a goroutine started by a parallel test (or the testing package) could
// pass for a leak; the stack headers say which bubble each goroutine
// belongs to. It returns -1 outside a bubble.
func bubbleGoroutines() int {
	own := bubbleHeader.FindSubmatch(stacks(false))
	if own == nil {
		return -1
	}
	n := 0
	for _, m := range bubbleHeader.FindAllSubmatch(stacks(true), -1) {
		if bytes.Equal(m[1], own[1]) {
			n++
		}
	}
	return n
}

// goroutinesSettledTo returns the number of goroutines in the calling
// goroutine's bubble once it is down to want, or after a while if it stays
// above. A goroutine that has returned may take a moment to exit; a leaked
// one never does. The count reads every goroutine's stack, which is slow
// when a broken implementation has leaked many, so it is read only once per
// batch of yields.
func goroutinesSettledTo(want int) int {
	n := bubbleGoroutines()
	for batch := 0; batch < 10 && n > want; batch++ {
		for range 100 {
			runtime.Gosched()
		}
		n = bubbleGoroutines()
	}
	return n
}

// stacks returns runtime.Stack's dump of the calling goroutine, or of all.
func stacks(all bool) []byte {
	buf := make([]byte, 1<<16)
	for {
		n := runtime.Stack(buf, all)
		if n < len(buf) {
			return buf[:n]
		}
		buf = make([]byte, 2*len(buf))
	}
}
