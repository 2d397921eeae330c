//go:build !linux

package camt

import (
	"testing"
	"time"
)

// cpuTime is -1 where the process's CPU time is not read.
func cpuTime(testing.TB) time.Duration { return -1 }
