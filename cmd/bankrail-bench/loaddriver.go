package main

// The load driver: the requests of each phase and the connections that
// send them (see load.go).

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// driver runs phases against one bankrail and the bare server.
type driver struct {
	o     loadOptions
	app   string
	bare  string
	token string
	body  []byte
	level *slog.LevelVar

	mu  sync.Mutex
	ids []string // payments created so far, read by the read phases
	seq atomic.Int64
}

// phaseSpec is one phase: where its requests go and how each is made.
type phaseSpec struct {
	name    string
	addr    string
	want    int
	logInfo bool
	request func(conn, i int) []byte
	created bool // the answer is a new payment: remember its id
}

func (d *driver) phase(name string) phaseSpec {
	auth := "Bearer " + d.token
	create := rawRequest(d.app, "POST", "/payments", d.body, "Authorization", auth, "Content-Type", "application/json",
		"X-Service-Api-Version", "1", "X-Service-Initiation-Channel", "hosted")
	prefix := make([]byte, 8)
	_, _ = rand.Read(prefix)
	keyed := func(int, int) []byte {
		key := fmt.Sprintf("%s-%d", hex.EncodeToString(prefix), d.seq.Add(1))
		return rawRequest(d.app, "POST", "/payments", d.body, "Authorization", auth, "Content-Type", "application/json",
			"X-Service-Api-Version", "1", "X-Service-Initiation-Channel", "hosted", "Idempotency-Key", key)
	}
	d.mu.Lock()
	ids := slices.Clone(d.ids)
	d.mu.Unlock()
	reads := make([][]byte, 0, min(len(ids), 4096))
	for i := 0; i < len(ids) && len(reads) < cap(reads); i++ {
		reads = append(reads, rawRequest(d.app, "GET", "/payments/"+ids[len(ids)-1-i], nil, "Authorization", auth))
	}
	read := func(conn, i int) []byte { return reads[(conn*131+i)%len(reads)] }
	switch name {
	case "bare":
		req := rawRequest(d.bare, "GET", "/bare", nil)
		return phaseSpec{name: name, addr: d.bare, want: 200, request: func(int, int) []byte { return req }}
	case "create", "create-log":
		return phaseSpec{name: name, addr: d.app, want: 201, logInfo: name == "create-log", created: true,
			request: func(int, int) []byte { return create }}
	case "create-key":
		return phaseSpec{name: name, addr: d.app, want: 201, created: true, request: keyed}
	case "read", "read-log":
		if len(reads) == 0 {
			read = func(int, int) []byte { return rawRequest(d.app, "GET", "/payments/none", nil, "Authorization", auth) }
		}
		return phaseSpec{name: name, addr: d.app, want: 200, logInfo: name == "read-log", request: read}
	case "list":
		req := rawRequest(d.app, "GET", "/payments?limit=25", nil, "Authorization", auth)
		return phaseSpec{name: name, addr: d.app, want: 200, request: func(int, int) []byte { return req }}
	}
	panic("unknown phase " + name)
}

// measured is what one run of a phase measured.
type measured struct {
	rps    float64
	cores  float64 // CPU time of this process over the elapsed time
	perCPU float64 // requests per CPU second of this process
	lat    []time.Duration
	errors int
}

// runProfiled is run, writing the CPU profile (--cpuprofile) of this run
// alone when profile is set.
func (d *driver) runProfiled(p phaseSpec, dur time.Duration, profile bool) (measured, error) {
	if !profile {
		return d.run(p, dur)
	}
	stop, err := startCPUProfile(d.o.cpuProfile)
	if err != nil {
		return measured{}, err
	}
	defer stop()
	return d.run(p, dur)
}

// run drives p from every connection for d.
func (d *driver) run(p phaseSpec, dur time.Duration) (measured, error) {
	if p.logInfo {
		d.level.Set(slog.LevelInfo)
		defer d.level.Set(slog.LevelWarn)
	}
	n := d.o.connections
	conns := make([]*rawConn, n)
	defer func() {
		for _, c := range conns {
			if c != nil {
				c.Close()
			}
		}
	}()
	for i := range conns {
		c, err := dialRaw(p.addr)
		if err != nil {
			return measured{}, err
		}
		conns[i] = c
	}
	lat := make([][]time.Duration, n)
	errCount := make([]int, n)
	created := make([][]string, n)
	var firstErr atomic.Pointer[string]
	var wg sync.WaitGroup
	cpu0, start := cpuTime(), time.Now()
	deadline := start.Add(dur)
	for w := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := conns[w]
			for i := 0; ; i++ {
				t := time.Now()
				if !t.Before(deadline) {
					return
				}
				status, body, err := c.do(p.request(w, i), t.Add(30*time.Second))
				lat[w] = append(lat[w], time.Since(t))
				if err == nil && status != p.want {
					err = fmt.Errorf("status %d: %.300s", status, body)
				}
				if err != nil {
					errCount[w]++
					msg := fmt.Sprintf("%s: %v", p.name, err)
					firstErr.CompareAndSwap(nil, &msg)
					if c2, derr := dialRaw(p.addr); derr == nil { // the connection may be broken
						c.Close()
						c, conns[w] = c2, c2
					}
					continue
				}
				if p.created {
					if i := bytes.Index(body, []byte(`"id":"`)); i >= 0 && len(body) >= i+6+36 {
						created[w] = append(created[w], string(body[i+6:i+6+36]))
					}
				}
			}
		}()
	}
	wg.Wait()
	elapsed, cpu := time.Since(start), cpuTime()-cpu0
	m := measured{lat: slices.Concat(lat...)}
	m.rps = float64(len(m.lat)) / elapsed.Seconds()
	m.cores = cpu.Seconds() / elapsed.Seconds()
	m.perCPU = float64(len(m.lat)) / max(cpu.Seconds(), 1e-3)
	for _, e := range errCount {
		m.errors += e
	}
	if msg := firstErr.Load(); msg != nil {
		fmt.Printf("  %s (%d failed)\n", *msg, m.errors)
	}
	d.mu.Lock()
	for _, c := range created {
		d.ids = append(d.ids, c...)
	}
	d.mu.Unlock()
	return m, nil
}
