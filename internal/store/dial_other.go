//go:build !linux

package store

import "time"

// userTimeout: TCP_USER_TIMEOUT is Linux's; elsewhere the keepalive
// probes alone find a dead peer.
func userTimeout(uintptr, time.Duration) error { return nil }
