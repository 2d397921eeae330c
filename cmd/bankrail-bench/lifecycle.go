package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/bankrail/bankrail/internal/app"
	"github.com/bankrail/bankrail/internal/seed"
)

// The lifecycles: a sandbox payment from creation to COMPLETED,
//
//   - in-process: POST /payments, then POST /sandbox/payments/{id}/authorise
//     (the moves applied in the service, no bank, no payer: 2 requests, 2
//     transactions);
//   - through the NextGenPSD2 connector: POST /payments (api channel), the
//     payer's GET of its directUrl (the connector initiates the payment at
//     the mock ASPSP over HTTP) and POST of the mock bank page (the SCA
//     recorded at the mock ASPSP, the status read back over HTTP): 3 + 2
//     requests, 5 transactions;
//   - the payer in-process: the same three requests of the payer against a
//     second instance whose mock banks answer in-process
//     (app.Options.MockBanksInProcess, the sandbox's path before the
//     connector): 3 requests, 3 transactions. It is the fair baseline of
//     the connector's overhead: the first one skips the payer's pages.
//
// Each operation is one whole lifecycle: req/s is lifecycles per second.
// The three alternate round by round; the CPU is the whole process's (both
// instances: the idle one's workers count in every phase).

// startPayerBaseline starts the second instance (its own fresh database of
// the same engine, the mock banks in-process) and signs in to it.
func startPayerBaseline(ctx context.Context, o options, log *slog.Logger, refURL string) (*bench, func(), error) {
	cfg, cleanup, err := benchConfig(ctx, o.databaseURL)
	if err != nil {
		return nil, nil, err
	}
	demo := seed.Demo("")
	a, err := app.New(ctx, cfg, log, app.Options{Seed: &demo, MockBanksInProcess: true})
	if err != nil {
		cleanup()
		return nil, nil, fmt.Errorf("start the instance with in-process mock banks: %w", err)
	}
	stop := func() {
		sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		_ = a.Shutdown(sctx)
		cleanup()
	}
	if err := a.Start(ctx); err != nil {
		stop()
		return nil, nil, err
	}
	b := newBench(o, "http://"+a.Addr(), refURL)
	if err := b.login(); err != nil {
		stop()
		return nil, nil, err
	}
	return b, stop, nil
}

// lifecycles measures the three lifecycles in alternating rounds (payer is
// the bench of the instance with in-process mock banks) and prints them
// with their ratios.
func (b *bench) lifecycles(payer *bench) {
	samples := []*sample{{name: "lifecycle in-process"}, {name: "lifecycle via XS2A"}, {name: "payer in-process"}}
	ops := []func(worker, i int) error{b.lifecycleInProcess, b.lifecycleXS2A, payer.lifecycleXS2A}
	round := b.o.duration / time.Duration(b.o.rounds)
	for range b.o.rounds {
		for i, s := range samples {
			b.run(s, round, ops[i])
		}
	}
	inProcess, viaXS2A, viaPayer := samples[0].result(), samples[1].result(), samples[2].result()
	inProcess.print(nil)
	viaXS2A.print(&inProcess)
	viaPayer.print(&inProcess)
	fmt.Printf("\na lifecycle (creation to COMPLETED) through the NextGenPSD2 connector and the mock ASPSP is %.2fx as fast as in-process (p50 %.2fx)\n",
		viaXS2A.rps()/max(inProcess.rps(), 1e-9), float64(viaXS2A.p50)/float64(max(inProcess.p50, 1)))
	fmt.Printf("CPU per lifecycle (the whole process): in-process %s, via XS2A %s: %.2fx as cheap\n",
		inProcess.cpuPerOp().Round(time.Microsecond), viaXS2A.cpuPerOp().Round(time.Microsecond),
		float64(inProcess.cpuPerOp())/float64(max(viaXS2A.cpuPerOp(), 1)))
	fmt.Printf("against the payer's same steps in-process (mock banks without the connector): %.2fx as fast (p50 %.2fx), CPU %s against %s: %.2fx as cheap\n",
		viaXS2A.rps()/max(viaPayer.rps(), 1e-9), float64(viaXS2A.p50)/float64(max(viaPayer.p50, 1)),
		viaXS2A.cpuPerOp().Round(time.Microsecond), viaPayer.cpuPerOp().Round(time.Microsecond),
		float64(viaPayer.cpuPerOp())/float64(max(viaXS2A.cpuPerOp(), 1)))
}

// createPayment creates a payment on channel and returns its record.
func (b *bench) createPayment(channel string) (id, directURL string, err error) {
	req, _ := http.NewRequest("POST", b.appURL+"/payments", bytes.NewReader(b.body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+b.token)
	req.Header.Set("X-Service-Api-Version", "1")
	req.Header.Set("X-Service-Initiation-Channel", channel)
	body, err := b.do(req, http.StatusCreated)
	if err != nil {
		return "", "", err
	}
	var rec struct {
		ID   string `json:"id"`
		Flow struct {
			Details struct {
				Redirect struct {
					DirectURL string `json:"directUrl"`
				} `json:"redirect"`
			} `json:"details"`
		} `json:"paymentInitiationFlow"`
	}
	if err := json.Unmarshal(body, &rec); err != nil {
		return "", "", err
	}
	return rec.ID, rec.Flow.Details.Redirect.DirectURL, nil
}

func (b *bench) lifecycleInProcess(worker, i int) error {
	id, _, err := b.createPayment("hosted")
	if err != nil {
		return err
	}
	req, _ := http.NewRequest("POST", b.appURL+"/sandbox/payments/"+id+"/authorise", strings.NewReader(`{"outcome":"COMPLETED"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+b.token)
	_, err = b.do(req, http.StatusOK)
	return err
}

// lifecycleXS2A is the payer's lifecycle: POST /payments (api channel),
// the GET of the mock bank page (its directUrl) and the POST of its
// Approve button, to the final page; through the connector or, on the
// instance with in-process mock banks, without.
func (b *bench) lifecycleXS2A(worker, i int) error {
	_, direct, err := b.createPayment("api")
	if err != nil {
		return err
	}
	u, err := url.Parse(direct)
	if err != nil {
		return err
	}
	page := b.appURL + u.RequestURI()
	req, _ := http.NewRequest("GET", page, nil)
	if _, err := b.doPage(req, http.StatusOK); err != nil {
		return err
	}
	form := url.Values{"token": {u.Query().Get("token")}, "outcome": {"COMPLETED"}}
	req, _ = http.NewRequest("POST", b.appURL+u.Path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	loc, err := b.doPage(req, http.StatusSeeOther)
	if err == nil && !strings.Contains(loc, "/done") {
		err = fmt.Errorf("the payer went to %s, not the final page", loc)
	}
	return err
}

// doPage sends a request of the payer's browser (no redirect followed) and
// returns where it is sent.
func (b *bench) doPage(req *http.Request, want int) (string, error) {
	resp, err := b.pages.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != want {
		return "", fmt.Errorf("%s %s: %d", req.Method, req.URL.Path, resp.StatusCode)
	}
	return resp.Header.Get("Location"), nil
}
