package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/bankrail/bankrail/internal/app"
)

// reference is the yardstick: a minimal HTTP handler on the same database
// (the very connection pools of the running bankrail) doing the least work
// an equivalent request needs: one INSERT of a payment-sized row in one
// transaction, or one SELECT of it by primary key. No authentication,
// validation or rendering.
type reference struct {
	srv   *http.Server
	addr  string
	write *sql.DB
	read  *sql.DB
}

// startReference creates the reference table and serves POST /ref and
// GET /ref/{id} on a loopback port.
func startReference(ctx context.Context, a *app.App) (*reference, error) {
	write, read := a.Store().Pools()
	if _, err := write.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS bench_reference (
		id TEXT PRIMARY KEY, customer_id TEXT NOT NULL, status TEXT NOT NULL, currency TEXT NOT NULL,
		amount BIGINT NOT NULL, request TEXT NOT NULL, created_at BIGINT NOT NULL)`); err != nil {
		return nil, fmt.Errorf("create reference table: %w", err)
	}
	ln, err := loopback()
	if err != nil {
		return nil, err
	}
	r := &reference{addr: ln.Addr().String(), write: write, read: read}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /ref", r.insert)
	mux.HandleFunc("GET /ref/{id}", r.get)
	r.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = r.srv.Serve(ln) }()
	return r, nil
}

// Addr is the reference's address.
func (r *reference) Addr() string { return r.addr }

// Close stops the reference server.
func (r *reference) Close() { _ = r.srv.Close() }

// insert stores the request body as one row in one transaction and answers
// its id.
func (r *reference) insert(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	id := hex.EncodeToString(b)
	tx, err := r.write.BeginTx(req.Context(), nil)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	_, err = tx.ExecContext(req.Context(), `INSERT INTO bench_reference (id, customer_id, status, currency, amount, request, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`, id, "customer", "NEW_PAYMENT", "EUR", 1050, string(body), time.Now().UnixMicro())
	if err == nil {
		err = tx.Commit()
	} else {
		_ = tx.Rollback()
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	fmt.Fprintf(w, `{"id":%q}`, id)
}

// get answers the stored row's body.
func (r *reference) get(w http.ResponseWriter, req *http.Request) {
	var body string
	err := r.read.QueryRowContext(req.Context(), `SELECT request FROM bench_reference WHERE id = $1`, req.PathValue("id")).Scan(&body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, body)
}
