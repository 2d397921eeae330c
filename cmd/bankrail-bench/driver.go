package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bankrail/bankrail/internal/seed"
)

// bench drives the phases.
type bench struct {
	o       options
	appURL  string
	refURL  string
	client  *http.Client
	pages   *http.Client // the payer's browser: no redirect followed
	token   string
	body    []byte
	mu      sync.Mutex
	payIDs  []string // created by POST /payments, read by GET
	refIDs  []string // created by the reference INSERT
	counter atomic.Int64
}

func newBench(o options, appURL, refURL string) *bench {
	tr := &http.Transport{MaxIdleConns: o.clients * 2, MaxIdleConnsPerHost: o.clients * 2, IdleConnTimeout: time.Minute}
	body, _ := json.Marshal(paymentRequest())
	pages := &http.Client{Transport: tr, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return &bench{o: o, appURL: appURL, refURL: refURL, client: &http.Client{Transport: tr, Timeout: 30 * time.Second}, pages: pages, body: body}
}

// paymentRequest is the body of the tool's POST /payments, as a map that
// a phase may vary.
func paymentRequest() map[string]any {
	return map[string]any{
		"currency": "EUR", "amount": 1050, "internalReference": "bench", "paymentReference": "Bench 1",
		"payer":         map[string]any{"firstName": "Anna", "lastName": "Müller", "email": "anna@example.com"},
		"device":        map[string]any{"ip": "203.0.113.7", "userAgent": "bankrail-bench"},
		"paymentSystem": "OPEN_BANKING_EU",
		"openBankingEU": map[string]any{"type": "GOODS", "institutionId": "ba4c0276-0000-4000-8000-000000000001"},
		"beneficiary":   map[string]any{"name": "Demo Shop GmbH", "accountIdentifiers": map[string]any{"iban": "DE89370400440532013000"}},
		"communication": map[string]any{"notifications": map[string]any{"url": "https://shop.example/notify"}},
		"displayInfo":   []map[string]string{{"key": "Order", "value": "42"}},
	}
}

// login gets an access token for the demo merchant.
func (b *bench) login() error {
	body, _ := json.Marshal(map[string]string{"grant_type": "password", "client_id": seed.DemoClientID,
		"client_secret": seed.DemoClientSecret, "username": seed.DemoUsername, "password": seed.DemoPassword})
	resp, err := b.client.Post(b.appURL+"/oauth", "application/json", bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("login: %w", err)
	}
	defer resp.Body.Close()
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&tok); err != nil || tok.AccessToken == "" {
		return fmt.Errorf("login: status %d: %v", resp.StatusCode, err)
	}
	b.token = tok.AccessToken
	return nil
}

// result is what one phase measured.
type result struct {
	name     string
	count    int
	errors   int
	elapsed  time.Duration
	p50, p99 time.Duration
	cpu      time.Duration // the process's CPU time during the phase (server, clients and workers)
}

// cpuPerOp is the process's CPU time per operation of the phase.
func (r result) cpuPerOp() time.Duration { return r.cpu / time.Duration(max(r.count, 1)) }

func (r result) rps() float64 { return float64(r.count) / r.elapsed.Seconds() }

// print writes one row; with a reference, the req/s ratio to it.
func (r result) print(ref *result) {
	ratio := ""
	if ref != nil && ref.rps() > 0 {
		ratio = fmt.Sprintf("%.2f", r.rps()/ref.rps())
	}
	fmt.Printf("%-22s %10.0f %10s %10s %8d %8s\n", r.name, r.rps(), r.p50.Round(time.Microsecond), r.p99.Round(time.Microsecond), r.errors, ratio)
}

// pair measures a reference and an endpoint in alternating rounds.
func (b *bench) pair(refName string, ref func(worker, i int) error, name string, op func(worker, i int) error) (result, result) {
	r, e := &sample{name: refName}, &sample{name: name}
	round := b.o.duration / time.Duration(b.o.rounds)
	for range b.o.rounds {
		b.run(r, round, ref)
		b.run(e, round, op)
	}
	return r.result(), e.result()
}

// sample accumulates the latencies of one phase over its rounds.
type sample struct {
	name    string
	lat     []time.Duration
	errors  int
	elapsed time.Duration
	cpu     time.Duration
}

func (s *sample) result() result {
	slices.Sort(s.lat)
	r := result{name: s.name, count: len(s.lat), errors: s.errors, elapsed: s.elapsed, cpu: s.cpu}
	if len(s.lat) > 0 {
		r.p50, r.p99 = s.lat[len(s.lat)/2], s.lat[len(s.lat)*99/100]
	}
	return r
}

// run drives op from every client for d and adds what it measured to s.
func (b *bench) run(s *sample, d time.Duration, op func(worker, i int) error) {
	deadline := time.Now().Add(d)
	lat := make([][]time.Duration, b.o.clients)
	errCount := make([]int, b.o.clients)
	var wg sync.WaitGroup
	start, cpu := time.Now(), cpuTime()
	for w := range b.o.clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; time.Now().Before(deadline); i++ {
				t := time.Now()
				err := op(w, i)
				lat[w] = append(lat[w], time.Since(t))
				if err != nil {
					if errCount[w] == 0 && s.errors == 0 {
						fmt.Printf("  %s: %v\n", s.name, err)
					}
					errCount[w]++
				}
			}
		}()
	}
	wg.Wait()
	s.elapsed += time.Since(start)
	s.cpu += cpuTime() - cpu
	s.lat = append(s.lat, slices.Concat(lat...)...)
	for _, n := range errCount {
		s.errors += n
	}
}

// do sends one request and checks its status; it returns the body.
func (b *bench) do(req *http.Request, want int) ([]byte, error) {
	resp, err := b.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != want {
		return nil, fmt.Errorf("%s %s: %d %s", req.Method, req.URL.Path, resp.StatusCode, body)
	}
	return body, nil
}

// idOf reads "id" from a JSON body.
func idOf(body []byte) string {
	var v struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(body, &v)
	return v.ID
}

func (b *bench) refInsert(worker, i int) error {
	req, _ := http.NewRequest("POST", b.refURL+"/ref", bytes.NewReader(b.body))
	req.Header.Set("Content-Type", "application/json")
	body, err := b.do(req, http.StatusCreated)
	if err == nil {
		b.remember(&b.refIDs, idOf(body))
	}
	return err
}

func (b *bench) postPayment(worker, i int) error {
	req, _ := http.NewRequest("POST", b.appURL+"/payments", bytes.NewReader(b.body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+b.token)
	req.Header.Set("X-Service-Api-Version", "1")
	req.Header.Set("X-Service-Initiation-Channel", "hosted")
	if b.o.idempotency {
		k := make([]byte, 16)
		_, _ = rand.Read(k)
		req.Header.Set("Idempotency-Key", hex.EncodeToString(k))
	}
	body, err := b.do(req, http.StatusCreated)
	if err == nil {
		b.remember(&b.payIDs, idOf(body))
	}
	return err
}

func (b *bench) refSelect(worker, i int) error {
	req, _ := http.NewRequest("GET", b.refURL+"/ref/"+b.pick(b.refIDs), nil)
	_, err := b.do(req, http.StatusOK)
	return err
}

func (b *bench) getPayment(worker, i int) error {
	req, _ := http.NewRequest("GET", b.appURL+"/payments/"+b.pick(b.payIDs), nil)
	req.Header.Set("Authorization", "Bearer "+b.token)
	_, err := b.do(req, http.StatusOK)
	return err
}

func (b *bench) remember(list *[]string, id string) {
	b.mu.Lock()
	*list = append(*list, id)
	b.mu.Unlock()
}

// pick returns ids in turn (reads happen after the writes: no lock needed).
func (b *bench) pick(ids []string) string {
	if len(ids) == 0 {
		return "none"
	}
	n := b.counter.Add(1)
	return ids[int(n)%len(ids)]
}
