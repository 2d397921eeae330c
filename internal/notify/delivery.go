package notify

import "time"

// Claim is a notification leased to one worker for one attempt, with what
// the attempt needs from its application. Secret must never be logged.
type Claim struct {
	Notification
	LeaseID   string
	AppURL    string // the application's notification URL now
	Secret    string // the application's notification secret
	ClaimedAt time.Time
	Rotation  Rotation // the previous secret during a rotation's overlap
	Chaos     Chaos    // the application's sandbox chaos settings
	// HoldingReorder: the application already has a notification held for
	// reordering (chaos holds one at a time).
	HoldingReorder bool
}

// Target returns the URL the attempt goes to: the notification's own URL,
// else the application's.
func (c Claim) Target() string {
	if c.URL != "" {
		return c.URL
	}
	return c.AppURL
}

// ClaimRequest asks for due notifications. Due times follow the service
// clock (the sandbox clock moves retries forward); leases follow the wall
// clock, because a lease only guards against a worker that died, and a
// sandbox clock advance must not make an attempt in flight look abandoned.
type ClaimRequest struct {
	Due      time.Time     // service clock now: next_attempt_at <= Due
	LeaseNow time.Time     // wall clock now: leases ending before it are free
	Lease    time.Duration // how long the claim holds (wall time)
	Limit    int
	Skip     []string       // applications the caller is busy with
	Left     map[string]int // at most this many of an application (the caller's slots left for it); absent: Limit
}

// Outcome is the result of one attempt, to be recorded with the
// notification's next state.
type Outcome struct {
	NotificationID string
	ApplicationID  string
	LeaseID        string
	Attempt        Attempt
	Status         Status
	NextAttemptAt  time.Time // when Status is PENDING
	At             time.Time // when the attempt ended
	Duplicate      *Attempt  // chaos: a second delivery of the same notification, after Attempt
	Deferred       *Plan     // chaos held the notification back: no attempt was made
	// Releases: a success that may release notifications held by chaos
	// (the application has reorder or rule-1 chaos on).
	Releases bool
	Key      string // the delivered notification's ordering key (its payment, or its id)
	Payment  string // its payment id
	Type     string // its X-Service-Type
}

// Settle decides the outcome of attempt a on the claimed notification c,
// ended at now, following the retry schedule from the last redelivery.
func Settle(c Claim, a Attempt, now time.Time) Outcome {
	st, next := Decide(c.Attempts-c.RetryFrom, a.Success, now)
	return Outcome{NotificationID: c.ID, ApplicationID: c.ApplicationID, LeaseID: c.LeaseID, Attempt: a,
		Status: st, NextAttemptAt: next, At: now}
}
