package check

// The functions below are the package's earlier entry points, kept for
// semtest's reference strategies until they call the Pkg methods.

// Size panics unless size is at least 1, the argument of New.
//
// Deprecated: use Pkg.PanicIfBadSize.
func Size(pkg string, size int64) { Pkg(pkg).PanicIfBadSize("New", size, Unbounded) }

// Weight panics if n is negative.
//
// Deprecated: use Pkg.PanicIfNegative.
func Weight(pkg, method string, n int64) { Pkg(pkg).PanicIfNegative(method, n) }

// ExceedsSize returns the error Acquire(n) reports when n > size.
//
// Deprecated: use Pkg.ErrExceedsSize.
func ExceedsSize(pkg string, n, size int64) error { return Pkg(pkg).ErrExceedsSize(n, size) }

// OverRelease panics because Release(n) would give back more than held.
//
// Deprecated: use Pkg.PanicOverRelease.
func OverRelease(pkg string, n, held int64) { Pkg(pkg).PanicOverRelease(n, held) }
