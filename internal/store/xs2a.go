package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/job"
	"github.com/bankrail/bankrail/internal/xs2a"
	"github.com/bankrail/bankrail/internal/xs2a/aspsp"
)

var (
	_ xs2a.Store  = (*Store)(nil)
	_ aspsp.Store = (*Store)(nil)
)

const initiationColumns = `payment_id, bank_id, product, request_id, aspsp_payment_id, sca_redirect, transaction_status, reason,
	created_at, updated_at, sca_approach, psu_message`

// The connector's and the mock ASPSP's statements, prepared once
// (stmt.go's hotWrites and hotQueries): a lifecycle through the connector
// runs each of them once or more, and SQLite parses every statement it is
// not given prepared.
var (
	selectInitiation = `SELECT ` + initiationColumns + ` FROM xs2a_initiations WHERE payment_id = $1`
	insertInitiation = `INSERT INTO xs2a_initiations (` + initiationColumns + `) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
		ON CONFLICT (payment_id) DO NOTHING`
	endPoll = `UPDATE jobs SET state = 'cancelled', finished_at = $2, last_error = 'the payment no longer waits for its bank'
		WHERE unique_key = $1 AND state = 'available'`
	selectMockPayment = `SELECT ` + mockPaymentColumns + ` FROM xs2a_mock_payments WHERE bank_id = $1 AND id = $2`
	insertMockPayment = `INSERT INTO xs2a_mock_payments (` + mockPaymentColumns + `)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
		ON CONFLICT (bank_id, request_id) DO NOTHING`
	answerMockPayment = `UPDATE xs2a_mock_payments SET outcome = $3, holder = $4, answered_at = $5
		WHERE bank_id = $1 AND id = $2 AND outcome = '' RETURNING ` + mockPaymentColumns
)

func init() {
	hotWrites = append(hotWrites, insertInitiation, endPoll, insertMockPayment, answerMockPayment)
	hotQueries = append(hotQueries, selectInitiation, selectMockPayment)
}

// scanInitiation reads one row of initiationColumns.
func scanInitiation(row interface{ Scan(...any) error }) (xs2a.Initiation, error) {
	var in xs2a.Initiation
	var created, updated int64
	err := row.Scan(&in.PaymentID, &in.BankID, &in.Product, &in.RequestID, &in.ASPSPPaymentID, &in.SCARedirect, &in.Status,
		&in.Reason, &created, &updated, &in.Approach, &in.PSUMessage)
	in.CreatedAt, in.UpdatedAt = fromMicros(created), fromMicros(updated)
	return in, err
}

// Initiation implements xs2a.Store.
func (s *Store) Initiation(ctx context.Context, paymentID string) (xs2a.Initiation, error) {
	in, err := scanInitiation(s.onPool(s.read).QueryRowContext(ctx, selectInitiation, paymentID))
	return in, translate(err, "the initiation of payment "+paymentID)
}

// SaveInitiation implements xs2a.Store: the row and its jobs in one unit
// of work; the first initiation of a payment wins.
func (s *Store) SaveInitiation(ctx context.Context, in xs2a.Initiation, jobs ...job.Job) (xs2a.Initiation, error) {
	var out xs2a.Initiation
	err := s.InTx(ctx, func(tx *Tx) error {
		var fresh bool
		var err error
		if out, fresh, err = tx.Initiations().Save(ctx, in); err != nil || !fresh {
			return err
		}
		return tx.Jobs().Enqueue(ctx, jobs...)
	})
	return out, err
}

// initiations writes initiations inside a unit of work.
type initiations struct{ tx querier }

// Initiations writes initiations inside the transaction (xs2a.Unit).
func (t *Tx) Initiations() xs2a.Initiations { return initiations{tx: t.s.inside(t.tx)} }

var _ xs2a.Unit = (*Tx)(nil)

// Save implements xs2a.Initiations: the first initiation of a payment wins.
func (q initiations) Save(ctx context.Context, in xs2a.Initiation) (xs2a.Initiation, bool, error) {
	res, err := q.tx.ExecContext(ctx, insertInitiation, in.PaymentID, in.BankID, in.Product, in.RequestID, in.ASPSPPaymentID, in.SCARedirect, in.Status, in.Reason,
		micros(in.CreatedAt), micros(in.UpdatedAt), approachOf(in.Approach), in.PSUMessage)
	if err != nil {
		return xs2a.Initiation{}, false, translate(err, "record the initiation of payment "+in.PaymentID)
	}
	if n, err := res.RowsAffected(); err != nil {
		return xs2a.Initiation{}, false, translate(err, "record the initiation of payment "+in.PaymentID)
	} else if n == 1 {
		return in, true, nil
	}
	out, err := scanInitiation(q.tx.QueryRowContext(ctx, selectInitiation, in.PaymentID))
	return out, false, translate(err, "the initiation of payment "+in.PaymentID)
}

// EndPoll implements xs2a.Initiations: the payment's poll job that waits
// for its turn is cancelled (one that runs holds a lease and finishes).
// finished_at is bookkeeping (the purge's age), so wall time, as the
// queue's created_at.
func (q initiations) EndPoll(ctx context.Context, paymentID string) error {
	_, err := q.tx.ExecContext(ctx, endPoll, xs2a.PollKey(paymentID), micros(time.Now()))
	return translate(err, "end the poll of payment "+paymentID)
}

// UpdateStatus implements xs2a.Store.
func (s *Store) UpdateStatus(ctx context.Context, paymentID, status, reason string, at time.Time) error {
	_, err := s.write.ExecContext(ctx, `UPDATE xs2a_initiations SET transaction_status = $2, reason = $3, updated_at = $4
		WHERE payment_id = $1`, paymentID, status, reason, micros(at))
	return translate(err, "record the status of payment "+paymentID+" at its bank")
}

const mockPaymentColumns = `id, bank_id, product, request_id, customer_id, body, redirect_uri, nok_redirect_uri, outcome, holder,
	answered_at, created_at, sca_approach`

// scanMockPayment reads one row of mockPaymentColumns.
func scanMockPayment(row interface{ Scan(...any) error }) (aspsp.Payment, error) {
	var p aspsp.Payment
	var body string
	var answered sql.NullInt64
	var created int64
	err := row.Scan(&p.ID, &p.BankID, &p.Product, &p.RequestID, &p.CustomerID, &body, &p.RedirectURI, &p.NokRedirectURI,
		&p.Outcome, &p.Holder, &answered, &created, &p.Approach)
	if err != nil {
		return aspsp.Payment{}, err
	}
	if err := json.Unmarshal([]byte(body), &p.Body); err != nil {
		return aspsp.Payment{}, fmt.Errorf("mock payment %s: its body does not decode: %w", p.ID, err)
	}
	p.AnsweredAt, p.CreatedAt = fromNullMicros(answered), fromMicros(created)
	return p, nil
}

// CreateMockPayment implements aspsp.Store: one unit of work (group
// commit); the row is read back only when the bank has a payment of the
// request id already.
func (s *Store) CreateMockPayment(ctx context.Context, p aspsp.Payment) (aspsp.Payment, error) {
	body, err := json.Marshal(p.Body)
	if err != nil {
		return aspsp.Payment{}, fmt.Errorf("mock payment %s: %w", p.ID, err)
	}
	out := p
	err = s.InTx(ctx, func(tx *Tx) error {
		q := s.inside(tx.tx)
		res, err := q.ExecContext(ctx, insertMockPayment,
			p.ID, p.BankID, p.Product, p.RequestID, p.CustomerID, string(body), p.RedirectURI, p.NokRedirectURI, p.Outcome, p.Holder,
			nullMicros(p.AnsweredAt), micros(p.CreatedAt), approachOf(p.Approach))
		if err != nil {
			return translate(err, "record mock payment "+p.ID)
		}
		if n, err := res.RowsAffected(); err != nil || n == 1 {
			return translate(err, "record mock payment "+p.ID)
		}
		out, err = scanMockPayment(q.QueryRowContext(ctx, `SELECT `+mockPaymentColumns+` FROM xs2a_mock_payments
			WHERE bank_id = $1 AND request_id = $2`, p.BankID, p.RequestID))
		return translate(err, "mock payment "+p.ID)
	})
	return out, err
}

// MockPayment implements aspsp.Store.
func (s *Store) MockPayment(ctx context.Context, bankID, id string) (aspsp.Payment, error) {
	return s.mockPayment(ctx, s.onPool(s.read), bankID, id)
}

// mockPayment reads payment id of bank bankID through q.
func (s *Store) mockPayment(ctx context.Context, q querier, bankID, id string) (aspsp.Payment, error) {
	p, err := scanMockPayment(q.QueryRowContext(ctx, selectMockPayment, bankID, id))
	if err == sql.ErrNoRows {
		return aspsp.Payment{}, errs.NotFoundf("Payment %s does not exist at this bank.", id)
	}
	return p, translate(err, "mock payment "+id)
}

// AnswerMockPayment implements aspsp.Store: one statement in a unit of
// work (group commit) records the answer and returns the row; a payment
// answered already is read as it is.
func (s *Store) AnswerMockPayment(ctx context.Context, bankID, id, outcome, holder string, at time.Time) (aspsp.Payment, error) {
	var out aspsp.Payment
	err := s.InTx(ctx, func(tx *Tx) error {
		q := s.inside(tx.tx)
		var err error
		out, err = scanMockPayment(q.QueryRowContext(ctx, answerMockPayment, bankID, id, outcome, holder, micros(at)))
		if err == sql.ErrNoRows { // answered already, or none
			out, err = s.mockPayment(ctx, q, bankID, id)
			return err
		}
		return translate(err, "answer mock payment "+id)
	})
	return out, err
}

// approachOf is the SCA approach recorded for a mock payment: REDIRECT
// unless it is another.
func approachOf(a string) string {
	if a == "" {
		return xs2a.SCARedirect
	}
	return a
}
