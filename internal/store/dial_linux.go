package store

import (
	"time"

	"golang.org/x/sys/unix"
)

// userTimeout sets TCP_USER_TIMEOUT: the connection is closed when data
// it sent stays unacknowledged for d (a peer gone across a partition).
func userTimeout(fd uintptr, d time.Duration) error {
	return unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT, int(d.Milliseconds()))
}
