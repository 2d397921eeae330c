package worker

import "golang.org/x/sys/unix"

// threadPriority: Linux sets the priority of one thread (its tid).
const threadPriority = true

// lowerThread sets the calling thread's nice value.
func lowerThread(nice int) error {
	return unix.Setpriority(unix.PRIO_PROCESS, unix.Gettid(), nice)
}
