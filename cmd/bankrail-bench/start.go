package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/bankrail/bankrail/internal/seed"
)

// startUsage explains the start subcommand.
const startUsage = `bankrail-bench start --bankrail PATH [--runs 3] [--signins 32] [--load 5s] [--write FILE]
    runs a fresh sandbox (bankrail serve on an empty SQLite database in a temporary directory,
    loopback) --runs times and measures, from /proc: the time from exec to the first healthy
    /healthz, its resident memory after 2 s idle, its peak resident memory (VmHWM) after
    --signins concurrent password sign-ins (client secret and password: two argon2id
    verifications each), and its peak after load: 32 connections creating payments for --load,
    then reading them for --load (0 skips it). The server runs in its own process, so its memory
    is its own. Build the binary first: go build -o /tmp/bankrail ./cmd/bankrail.`

type startOptions struct {
	bankrail string
	runs     int
	signins  int
	load     time.Duration
	write    string
	args     []string
}

// startRun is what one fresh start measured.
type startRun struct {
	ready             time.Duration
	idleRSS, peakRSS  int64   // kB
	peakBeforeSignins int64   // kB
	peakAfterLoad     int64   // kB; 0 without --load
	created, read     float64 // req/s of the load
}

func runStart(args []string) error {
	o := startOptions{args: args}
	fs := flag.NewFlagSet("start", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprintln(fs.Output(), startUsage) }
	fs.StringVar(&o.bankrail, "bankrail", "", "the bankrail binary to start")
	fs.IntVar(&o.runs, "runs", 3, "fresh starts")
	fs.IntVar(&o.signins, "signins", 32, "concurrent sign-ins")
	fs.DurationVar(&o.load, "load", 5*time.Second, "how long to create, then read, payments over 32 connections after the sign-ins (0: no load)")
	fs.StringVar(&o.write, "write", "", "update the start section of this Markdown file (docs/performance.md)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if o.bankrail == "" || o.runs < 1 || o.runs > 20 || o.signins < 1 || o.signins > 256 || o.load < 0 || o.load > 10*time.Minute {
		return errors.New("--bankrail is required; --runs 1-20, --signins 1-256, --load 0-10m")
	}
	var runs []startRun
	for i := range o.runs {
		r, err := startOnce(o)
		if err != nil {
			return fmt.Errorf("run %d: %w", i+1, err)
		}
		fmt.Printf("run %d: healthy after %s, idle RSS %.1f MB, peak RSS %.1f MB before and %.1f MB after %d concurrent sign-ins",
			i+1, r.ready.Round(time.Millisecond), mb(r.idleRSS), mb(r.peakBeforeSignins), mb(r.peakRSS), o.signins)
		if o.load > 0 {
			fmt.Printf(", %.1f MB after load (%.0f creates/s, %.0f reads/s)", mb(r.peakAfterLoad), r.created, r.read)
		}
		fmt.Println()
		runs = append(runs, r)
	}
	if o.write == "" {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "### Start and memory (last run of `bankrail-bench start`)\n\n")
	fmt.Fprintf(&b, "- Command: `%s`\n", commandLine(append([]string{"start"}, o.args...)))
	fmt.Fprintf(&b, "- Date: %s\n- Machine: %s\n\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"), machine())
	fmt.Fprintf(&b, "| run | exec to healthy /healthz | RSS after 2 s idle | peak RSS before sign-ins | peak RSS after %d concurrent sign-ins | peak RSS after load (%s creating, %s reading, 32 connections) |\n|---:|---:|---:|---:|---:|---:|\n",
		o.signins, o.load, o.load)
	for i, r := range runs {
		load := "not run"
		if o.load > 0 {
			load = fmt.Sprintf("%.1f MB (%.0f creates/s, %.0f reads/s)", mb(r.peakAfterLoad), r.created, r.read)
		}
		fmt.Fprintf(&b, "| %d | %s | %.1f MB | %.1f MB | %.1f MB | %s |\n", i+1, r.ready.Round(time.Millisecond), mb(r.idleRSS), mb(r.peakBeforeSignins), mb(r.peakRSS), load)
	}
	return updateSection(o.write, "start", b.String())
}

func mb(kb int64) float64 { return float64(kb) / 1000 }

// startOnce starts a fresh sandbox, measures it and stops it.
func startOnce(o startOptions) (startRun, error) {
	dir, err := os.MkdirTemp("", "bankrail-bench-start-")
	if err != nil {
		return startRun{}, err
	}
	defer os.RemoveAll(dir)
	ln, err := loopback()
	if err != nil {
		return startRun{}, err
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(o.bankrail, "serve", "--addr", addr, "--data-dir", dir)
	cmd.Dir = dir
	// The load's requests are counted against the rate limit, never refused
	// (an environment variable: a build without the limit ignores it).
	cmd.Env = append(os.Environ(), "BANKRAIL_API_RATE_LIMIT=1000000000")
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return startRun{}, err
	}
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	}()
	var r startRun
	client := &http.Client{Timeout: 5 * time.Second}
	for {
		if resp, err := client.Get("http://" + addr + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				r.ready = time.Since(t0)
				break
			}
		}
		if time.Since(t0) > 30*time.Second {
			return r, errors.New("not healthy within 30 s")
		}
		time.Sleep(2 * time.Millisecond)
	}
	time.Sleep(2 * time.Second)
	pid := cmd.Process.Pid
	if r.idleRSS, err = procStatus(pid, "VmRSS"); err != nil {
		return r, err
	}
	if r.peakBeforeSignins, err = procStatus(pid, "VmHWM"); err != nil {
		return r, err
	}
	body, _ := json.Marshal(map[string]string{"grant_type": "password", "client_id": seed.DemoClientID,
		"client_secret": seed.DemoClientSecret, "username": seed.DemoUsername, "password": seed.DemoPassword})
	var wg sync.WaitGroup
	errs := make([]error, o.signins)
	for i := range o.signins {
		wg.Go(func() {
			c := &http.Client{Timeout: 2 * time.Minute}
			resp, err := c.Post("http://"+addr+"/oauth", "application/json", bytes.NewReader(body))
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					err = fmt.Errorf("sign-in: status %d", resp.StatusCode)
				}
			}
			errs[i] = err
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return r, err
	}
	if r.peakRSS, err = procStatus(pid, "VmHWM"); err != nil || o.load == 0 {
		return r, err
	}
	if r.created, r.read, err = loadChild(addr, o.load); err != nil {
		return r, err
	}
	r.peakAfterLoad, err = procStatus(pid, "VmHWM")
	return r, err
}

// loadChild creates payments on the server at addr over 32 connections for
// dur, then reads them for dur; it returns both rates.
func loadChild(addr string, dur time.Duration) (created, read float64, err error) {
	b := newBench(options{clients: 1}, "http://"+addr, "")
	if err := b.login(); err != nil {
		return 0, 0, err
	}
	d := &driver{o: loadOptions{connections: 32}, app: addr, token: b.token, body: b.body, level: new(slog.LevelVar)}
	for _, name := range []string{"create", "read"} {
		m, err := d.run(d.phase(name), dur)
		if err == nil && m.errors > 0 {
			err = fmt.Errorf("%s: %d requests failed", name, m.errors)
		}
		if err != nil {
			return 0, 0, err
		}
		if name == "create" {
			created = m.rps
		} else {
			read = m.rps
		}
	}
	return created, read, nil
}

// procStatus reads a kB field of /proc/pid/status.
func procStatus(pid int, field string) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", field, pid)
}
