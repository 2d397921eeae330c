package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// The lifecycle pair: a sandbox payment from creation to COMPLETED,
//
//   - in-process: POST /payments, then POST /sandbox/payments/{id}/authorise
//     (the moves applied in the service, no bank);
//   - through the NextGenPSD2 connector: POST /payments (api channel), the
//     payer's GET of its directUrl (the connector initiates the payment at
//     the mock ASPSP over HTTP) and POST of the mock bank page (the SCA
//     recorded at the mock ASPSP, the status read back over HTTP).
//
// Each operation is one whole lifecycle: req/s is lifecycles per second.

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
