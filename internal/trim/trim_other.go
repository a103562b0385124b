//go:build !linux

package trim

// dropProgramPages has nothing to do where the kernel has no madvise of
// the kind Linux has; Release still returns freed heap.
func dropProgramPages() (int, error) { return 0, nil }
