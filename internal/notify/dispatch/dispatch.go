// Package dispatch delivers the notification outbox: background workers
// claim due notifications with a lease, POST them signed to the receiver
// (10 s timeout, no redirects), record every attempt, and follow the retry
// schedule and the pause rule of package notify. Several instances may run
// it on one database. It also sends test notifications synchronously.
package dispatch

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/notify"
	"github.com/bankrail/bankrail/internal/worker"
)

// Store is the outbox as the dispatcher uses it (internal/store).
type Store interface {
	// ClaimNotifications leases due notifications; when none is due it
	// is a read and writes nothing.
	ClaimNotifications(ctx context.Context, r notify.ClaimRequest) ([]notify.Claim, error)
	CompleteDeliveries(ctx context.Context, outcomes []notify.Outcome) ([]string, error)
	ReleaseNotifications(ctx context.Context, claims []notify.Claim) error
	// ExtendNotificationLeases moves the leases of the notifications still
	// held under leases to until (the dispatcher's heartbeat).
	ExtendNotificationLeases(ctx context.Context, leases []string, until time.Time) error
	RecordTestNotification(ctx context.Context, n notify.Notification, a notify.Attempt, now time.Time) (bool, error)
	GetApplicationByClientID(ctx context.Context, clientID string) (identity.Application, error)
	OnNotificationsDue(fn func())
}

// Options tune the dispatcher; zero values take the defaults.
type Options struct {
	Concurrency    int           // deliveries in flight in this process (default 128)
	PerApplication int           // of which at most this many for one application (default 32; docs/decisions.md "Notification delivery: 32 in flight per application")
	Poll           time.Duration // wall-time interval between looks at the outbox (default 100 ms)
	Lease          time.Duration // wall time a claim is held after the last heartbeat before another worker may retry it (default DefaultLease)
	Heartbeat      time.Duration // how often (real time) the leases of claims in flight are renewed (default Lease/3, at most Lease/2)
	Wall           clock.Clock   // the wall clock of leases (default clock.Real)
	Timeout        time.Duration // receiver's time to answer (default notify.Timeout, 10 s)
	Guard          bool          // production: refuse internal addresses in the dialer
	Chaos          bool          // sandbox: apply the applications' webhook chaos settings
	Metrics        *Metrics      // nil: none
}

func (o *Options) defaults() {
	if o.Concurrency <= 0 {
		o.Concurrency = 128
	}
	if o.PerApplication <= 0 {
		o.PerApplication = 32
	}
	if o.Poll <= 0 {
		o.Poll = 100 * time.Millisecond
	}
	if o.Timeout <= 0 {
		o.Timeout = notify.Timeout
	}
	if o.Lease <= 0 {
		o.Lease = DefaultLease
	}
	if o.Heartbeat <= 0 || o.Heartbeat > o.Lease/2 {
		o.Heartbeat = o.Lease / 3
	}
	if o.Wall == nil {
		o.Wall = clock.Real{}
	}
}

// DefaultLease is Options.Lease when unset: short, because the heartbeat
// renews the leases of the claims in flight every third of it until their
// outcomes are recorded (however long the receiver takes); a killed
// instance's claims are delivered again at most a lease after its last
// heartbeat (issue 28: it was 6 × Timeout, 60 s).
const DefaultLease = 15 * time.Second

// Dispatcher delivers notifications in the background. Start it once; Stop
// it before closing the store.
type Dispatcher struct {
	store Store
	clock clock.Clock
	log   *slog.Logger
	// claimLog logs the claims' failures, quietly while the database is
	// away (a failover, a partition).
	claimLog *worker.Outage
	opts     Options
	client   *http.Client
	metrics  *Metrics

	wake    chan struct{}
	results chan result

	mu       sync.Mutex
	inflight int
	perApp   map[string]int
	leases   map[string]int // lease id -> its claims not yet recorded (the heartbeat's)

	stop      chan struct{}
	cancel    context.CancelFunc
	loopDone  sync.WaitGroup
	sending   sync.WaitGroup
	completer sync.WaitGroup
	stopBeat  func()
	aborted   []notify.Claim
}

// result is one finished attempt, or a claim given back on shutdown.
type result struct {
	claim   notify.Claim
	outcome notify.Outcome
	aborted bool
}

// New returns a dispatcher; nothing runs until Start.
func New(store Store, clk clock.Clock, log *slog.Logger, opts Options) *Dispatcher {
	opts.defaults()
	d := &Dispatcher{store: store, clock: clk, log: log, claimLog: worker.NewOutage(log, "claim notifications", nil), opts: opts, metrics: opts.Metrics,
		client: newClient(opts.Guard, opts.Concurrency), wake: make(chan struct{}, 1),
		results: make(chan result, opts.Concurrency), perApp: map[string]int{}, leases: map[string]int{}}
	store.OnNotificationsDue(d.Wake)
	return d
}

// Wake makes the dispatcher look at the outbox now (never blocks).
func (d *Dispatcher) Wake() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// Start runs the workers until Stop or until ctx ends.
func (d *Dispatcher) Start(ctx context.Context) {
	ctx, d.cancel = context.WithCancel(ctx)
	d.stop = make(chan struct{})
	d.completer.Add(1)
	go d.complete()
	d.stopBeat = d.heartbeat(context.WithoutCancel(ctx))
	d.loopDone.Add(1)
	go d.loop(ctx)
}

// Stop stops claiming, cancels the attempts in flight (their notifications
// are released for another worker, not counted as failures), records the
// attempts that finished, and returns when all is written.
func (d *Dispatcher) Stop() {
	if d.stop == nil {
		return
	}
	close(d.stop)
	d.loopDone.Wait()
	d.cancel()
	d.sending.Wait()
	close(d.results)
	d.completer.Wait()
	d.stopBeat()
	if len(d.aborted) > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := d.store.ReleaseNotifications(ctx, d.aborted); err != nil {
			d.log.Warn("release notifications on shutdown", "count", len(d.aborted), "err", err)
		}
	}
	d.stop = nil
}

// loop claims due notifications at once, whenever woken (an enqueue, a
// delivery slot freed), and at every poll: worker.Every, until Stop (or
// ctx's end). Its claims' failures are logged by claimLog. The
// deliveries it begins run on ctx, which Stop cancels after the loop has
// returned.
func (d *Dispatcher) loop(ctx context.Context) {
	defer d.loopDone.Done()
	loopCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := d.stop
	go func() {
		select {
		case <-stop:
			cancel()
		case <-loopCtx.Done():
		}
	}()
	worker.Every(loopCtx, d.opts.Poll, func(loopCtx context.Context) (<-chan struct{}, error) { return nil, d.fill(loopCtx, ctx) },
		worker.EveryOptions{AtOnce: true, Wake: d.wake, Log: d.claimLog})
}

// now is the time on the clock of customerID's tenant (its sandbox clock in
// the sandbox): X-Service-Timed and the retry schedule follow it. When that
// clock cannot be read it is the base time (a retry then comes early on
// the tenant's clock, never late).
//
// A delivery reads it at each of its steps (the request, its outcome),
// which are apart in real time.
func (d *Dispatcher) now(ctx context.Context, customerID string) time.Time {
	now, err := clock.UnitTime(ctx, d.clock, customerID)
	if err != nil {
		d.logErr(ctx, "read the clock of a notification's customer", err)
		return clock.Base(d.clock) // basetime: the fallback above: early, never late
	}
	return now
}

// fill claims as many due notifications as there are free slots. Due is
// the base time: the claim adds each customer's sandbox clock offset. The
// claim looks application by application (internal/store): neither a
// paused application's backlog nor the backlog of one at its limit here
// (Skip) is scanned, however long, so a wake with nothing to claim costs a
// read of what is due. The claims are made on ctx, the deliveries begun on
// send; the claim's error, if one failed, is returned.
func (d *Dispatcher) fill(ctx, send context.Context) error {
	// basetime: a due scan (the claim adds each tenant's offset) and leases on the wall clock
	req := notify.ClaimRequest{Due: clock.Base(d.clock), LeaseNow: clock.Base(d.opts.Wall), Lease: d.opts.Lease}
	for {
		req.Limit, req.Skip, req.Left = d.capacity()
		if req.Limit == 0 {
			return nil
		}
		claims, err := d.store.ClaimNotifications(ctx, req)
		if err != nil {
			return err // claimLog: quiet while the database is away, its first failure and its return
		}
		for _, c := range claims {
			d.begin(send, c)
		}
		if len(claims) < req.Limit {
			return nil
		}
	}
}

// capacity returns how many notifications the next claim may take, the
// applications at their own limit, and how many more each application with
// deliveries in flight may have. One claim takes at most PerApplication,
// so that a backlog of one application cannot fill every slot at once.
func (d *Dispatcher) capacity() (int, []string, map[string]int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var skip []string
	left := make(map[string]int, len(d.perApp))
	for app, n := range d.perApp {
		if n >= d.opts.PerApplication {
			skip = append(skip, app)
		} else {
			left[app] = d.opts.PerApplication - n
		}
	}
	return min(d.opts.Concurrency-d.inflight, d.opts.PerApplication), skip, left
}

// begin delivers one claim in its own goroutine.
func (d *Dispatcher) begin(ctx context.Context, c notify.Claim) {
	d.mu.Lock()
	d.inflight++
	d.perApp[c.ApplicationID]++
	d.leases[c.LeaseID]++
	d.mu.Unlock()
	d.sending.Add(1)
	go func() {
		defer d.sending.Done()
		d.results <- d.deliver(ctx, c)
		d.mu.Lock()
		d.inflight--
		if d.perApp[c.ApplicationID]--; d.perApp[c.ApplicationID] <= 0 {
			delete(d.perApp, c.ApplicationID)
		}
		d.mu.Unlock()
		d.Wake()
	}()
}

// complete records finished attempts in batches: one transaction for all
// that are waiting, so that the database is not one commit per delivery.
func (d *Dispatcher) complete() {
	defer d.completer.Done()
	const maxBatch = 256
	for r := range d.results {
		batch := []result{r}
	drain:
		for len(batch) < maxBatch {
			select {
			case r, ok := <-d.results:
				if !ok {
					break drain
				}
				batch = append(batch, r)
			default:
				break drain
			}
		}
		d.record(batch)
	}
}

// record writes one batch of results; their claims leave the heartbeat
// (recorded, or released at Stop).
func (d *Dispatcher) record(batch []result) {
	defer d.recorded(batch)
	outcomes := make([]notify.Outcome, 0, len(batch))
	created := make([]time.Time, 0, len(batch))
	for _, r := range batch {
		if r.aborted {
			d.aborted = append(d.aborted, r.claim)
			continue
		}
		outcomes = append(outcomes, r.outcome)
		created = append(created, r.claim.CreatedAt)
	}
	if len(outcomes) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	paused, err := d.store.CompleteDeliveries(ctx, outcomes)
	if err != nil {
		// The leases expire and the notifications are delivered again: at least once.
		d.log.Error("record notification attempts", "count", len(outcomes), "err", err)
		return
	}
	for _, app := range paused {
		d.log.Warn("notifications paused after consecutive failures", "application_id", app, "failures", notify.PauseAfter)
	}
	d.metrics.recorded(outcomes, created, paused)
}

func (d *Dispatcher) logErr(ctx context.Context, what string, err error) {
	if err != nil && ctx.Err() == nil {
		d.log.Error(what, "err", err)
	}
}
