package notify

import "time"

// RetrySchedule is the wait before each retry: after the first failed
// attempt 5 s, then 30 s, 3 min, 10 min and 15 min; a failure after the last
// one gives up (FAILED).
var RetrySchedule = []time.Duration{5 * time.Second, 30 * time.Second, 3 * time.Minute, 10 * time.Minute, 15 * time.Minute}

// PauseAfter consecutive failed deliveries to an application pause its
// notifications until a test notification succeeds.
const PauseAfter = 6

// Timeout is how long a receiver has to answer.
const Timeout = 10 * time.Second

// Decide returns the notification's status after attempt number attempt
// (1-based, counted from the last redelivery) ended at now, and when the next
// attempt is due while it stays PENDING.
func Decide(attempt int, success bool, now time.Time) (Status, time.Time) {
	switch {
	case success:
		return Delivered, time.Time{}
	case attempt >= 1 && attempt <= len(RetrySchedule):
		return Pending, now.Add(RetrySchedule[attempt-1])
	case attempt < 1:
		return Pending, now.Add(RetrySchedule[0])
	default:
		return Failed, time.Time{}
	}
}

// CountsTowardPause reports whether attempt a is a failure of the receiver,
// which counts toward the application's pause. A missing URL is not: no
// receiver was asked, so it is recorded and retried but never pauses.
func CountsTowardPause(a Attempt) bool { return !a.Success && !a.NoURL }

// NoURLError is the error recorded on an attempt that had no URL to go to.
const NoURLError = "no notification URL: set the application's notification URL (or the payment's " +
	"communication.notifications.url); retried on the usual schedule, never counted toward the pause"

// ShouldPause reports whether consecutive failures reach the pause threshold.
func ShouldPause(consecutiveFailures int) bool { return consecutiveFailures >= PauseAfter }
