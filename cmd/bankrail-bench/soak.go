package main

// The soak phase (issue 31, item 5): a mixed load — creates, reads, payins,
// refunds, and the notifications they cause delivered to a deliberately
// slow receiver — first at full load for a short calibration (the mix's
// capacity), then at a fraction of that capacity (half by default), paced
// (open loop: a request's latency counts from when it was due, so a stall
// shows as latency, not as fewer requests) for --soak-duration, sampling
// this process's RSS. Any failed request fails the command.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bankrail/bankrail/internal/seed"
)

// soakCycle is the mix: ten operations per cycle. Each create asks the
// sandbox for an outcome (a payment left NEW, one RECEIVED at once, one
// expected whose funds the payin brings); a payin or refund with no payment
// ready for it reads instead.
var soakCycle = []string{"create", "read", "create-received", "read", "payin", "create-expected", "read", "refund", "read", "read"}

// soakScenario is the sandbox outcome of each kind of create.
var soakScenario = map[string]string{"create": "", "create-received": "COMPLETED", "create-expected": "COMPLETED>NOT_RECEIVED"}

// soakResult is what the soak measured.
type soakResult struct {
	calibration   time.Duration
	capacity      float64 // operations per second of the mix at full load
	rate          float64 // the paced rate
	duration      time.Duration
	ops           map[string]int64
	total         int64
	errors        int64
	firstErr      string
	p50, p99      time.Duration
	late          int64 // operations started more than a second after they were due
	rss           rssTrend
	receiverDelay time.Duration
	notified      int64            // notifications the slow receiver answered
	notifications map[string]int64 // the server's notifications by status at the end
	loadAvg       [2]string        // the machine's 1-minute load average as the paced run began and ended
}

// soakState is the mix's shared state: payments to read, and payments
// ready for a payin or a refund (bounded, so that memory stays flat).
type soakState struct {
	d        *driver
	auth     string
	body     []byte
	reads    [4096]string
	nread    atomic.Int64
	expected chan string
	received chan string
	seq      atomic.Int64
	prefix   string
	mu       sync.Mutex
	ops      map[string]int64
}

func newSoakState(d *driver, receiverURL string) (*soakState, error) {
	req := paymentRequest()
	req["internalReference"], req["paymentReference"] = "soak", "Soak"
	delete(req, "beneficiary") // expected on the demo's EUR Connect account (payins, refunds)
	req["communication"] = map[string]any{"notifications": map[string]any{"url": receiverURL}}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	return &soakState{d: d, auth: "Bearer " + d.token, body: body, expected: make(chan string, 4096), received: make(chan string, 4096),
		prefix: fmt.Sprintf("soak-%d", time.Now().UnixNano()), ops: map[string]int64{}}, nil
}

// request is the next operation of kind: its bytes, the status it must get
// and, for a create, where its payment goes once made.
func (s *soakState) request(kind string) (string, []byte, int) {
	app := s.d.app
	switch kind {
	case "payin":
		select {
		case id := <-s.expected:
			body := fmt.Appendf(nil, `{"externalPaymentId":"%s-%d","paymentReference":%q,"amount":{"amount":1050,"currency":"EUR"},`+
				`"sender":{"name":"Anna Payer"},"beneficiary":{"accountIdentifiers":{"iban":%q}}}`, s.prefix, s.seq.Add(1), id, seed.DemoEURIBAN)
			return kind, rawRequest(app, "POST", "/payin", body, "Authorization", s.auth, "Content-Type", "application/json",
				"X-Service-Api-Version", "1"), http.StatusAccepted
		default:
			kind = "read"
		}
	case "refund":
		select {
		case id := <-s.received:
			return kind, rawRequest(app, "POST", "/payments/"+id+"/request-refund", []byte(`{"amount":500,"externalReference":"soak"}`),
				"Authorization", s.auth, "Content-Type", "application/json", "X-Service-Api-Version", "1"), http.StatusCreated
		default:
			kind = "read"
		}
	}
	n := s.nread.Load()
	if n == 0 && kind == "read" {
		kind = "create" // nothing to read yet
	}
	if scenario, ok := soakScenario[kind]; ok {
		headers := []string{"Authorization", s.auth, "Content-Type", "application/json", "X-Service-Api-Version", "1",
			"X-Service-Initiation-Channel", "hosted"}
		if scenario != "" {
			headers = append(headers, "X-Service-Testing-Scenario", scenario)
		}
		return kind, rawRequest(app, "POST", "/payments", s.body, headers...), http.StatusCreated
	}
	id := s.reads[(n*131+s.seq.Add(1))%min(n, int64(len(s.reads)))]
	return "read", rawRequest(app, "GET", "/payments/"+id, nil, "Authorization", s.auth), http.StatusOK
}

// created remembers a new payment for the operations that need one.
func (s *soakState) created(kind string, body []byte) {
	i := bytes.Index(body, []byte(`"id":"`))
	if i < 0 || len(body) < i+6+36 {
		return
	}
	id := string(body[i+6 : i+6+36])
	s.reads[(s.nread.Add(1)-1)%int64(len(s.reads))] = id
	var ready chan string
	switch kind {
	case "create-received":
		ready = s.received
	case "create-expected":
		ready = s.expected
	}
	if ready != nil {
		select {
		case ready <- id:
		default: // enough are waiting
		}
	}
}

// soakRun drives the mix: paced at rate operations per second (0: every
// connection as fast as it can) for dur.
type soakRun struct {
	s      *soakState
	conns  int
	rate   float64
	dur    time.Duration
	hist   latHist
	total  atomic.Int64
	errors atomic.Int64
	late   atomic.Int64
	first  atomic.Pointer[string]
}

func (r *soakRun) run() error {
	conns := make([]*rawConn, r.conns)
	for i := range conns {
		c, err := dialRaw(r.s.d.app)
		if err != nil {
			return err
		}
		conns[i] = c
	}
	defer func() {
		for _, c := range conns {
			_ = c.Close()
		}
	}()
	start := time.Now()
	end := start.Add(r.dur)
	due := make(chan time.Time, 1<<16)
	if r.rate > 0 {
		go func() { // the pacer: one operation due every 1/rate
			defer close(due)
			interval := time.Duration(float64(time.Second) / r.rate)
			for i := int64(0); ; i++ {
				t := start.Add(time.Duration(i) * interval)
				if !t.Before(end) {
					return
				}
				if w := time.Until(t); w > 0 {
					time.Sleep(w) // pacing the load generator, not test logic
				}
				due <- t
			}
		}()
	}
	var wg sync.WaitGroup
	var next atomic.Int64
	for w := range r.conns {
		wg.Go(func() {
			c := conns[w]
			for {
				t := time.Now()
				if r.rate > 0 {
					var ok bool
					if t, ok = <-due; !ok {
						return
					}
				} else if !t.Before(end) {
					return
				}
				if time.Since(t) > time.Second {
					r.late.Add(1)
				}
				kind, req, want := r.s.request(soakCycle[next.Add(1)%int64(len(soakCycle))])
				status, body, err := c.do(req, time.Now().Add(30*time.Second))
				r.hist.add(time.Since(t))
				r.total.Add(1)
				if err == nil && status != want {
					err = fmt.Errorf("status %d: %.300s", status, body)
				}
				if err != nil {
					r.errors.Add(1)
					msg := fmt.Sprintf("%s: %v", kind, err)
					r.first.CompareAndSwap(nil, &msg)
					if c2, derr := dialRaw(r.s.d.app); derr == nil {
						_ = c.Close()
						c, conns[w] = c2, c2
					}
					continue
				}
				if _, ok := soakScenario[kind]; ok {
					r.s.created(kind, body)
				}
				r.s.mu.Lock()
				r.s.ops[kind]++
				r.s.mu.Unlock()
			}
		})
	}
	wg.Wait()
	return nil
}

// slowReceiver answers every notification after delay, counting them.
func slowReceiver(delay time.Duration, count *atomic.Int64) (net.Listener, error) {
	ln, err := loopback()
	if err != nil {
		return nil, err
	}
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(delay) // a deliberately slow merchant
		count.Add(1)
		w.WriteHeader(http.StatusNoContent)
	})}
	go func() { _ = srv.Serve(ln) }()
	return ln, nil
}
