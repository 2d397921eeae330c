//go:build !linux

package worker

// threadPriority: elsewhere a thread's priority is not set.
const threadPriority = false

func lowerThread(int) error { return nil }
