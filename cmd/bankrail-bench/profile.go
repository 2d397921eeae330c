package main

import (
	"fmt"
	"os"
	"runtime/pprof"
	"sync"
)

// startCPUProfile writes a CPU profile to path until the returned stop is
// called (once or more); with an empty path it profiles nothing.
func startCPUProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("create the CPU profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("start the CPU profile: %w", err)
	}
	return sync.OnceFunc(func() {
		pprof.StopCPUProfile()
		f.Close()
	}), nil
}
