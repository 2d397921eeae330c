package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/bankrail/bankrail/internal/audit"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/paging"
	"github.com/bankrail/bankrail/internal/payment"
	"github.com/bankrail/bankrail/internal/payout"
)

// payouts is the payout repository (payouts and their account holder
// verifications) over a unit of work's transaction or the read pool.
type payouts struct {
	s  *Store
	q  querier
	tx *sql.Tx // nil outside a unit of work
}

var (
	_ payout.Repository = payouts{}
	_ payout.Repos      = (*Tx)(nil)
)

// Payouts is the payout repository inside the transaction.
func (t *Tx) Payouts() payout.Repository { return payouts{s: t.s, q: t.tx, tx: t.tx} }

// Payouts reads payouts outside any unit of work (writes belong in one: Tx.Payouts).
func (s *Store) Payouts() payout.Repository { return payouts{s: s, q: s.read} }

// Create inserts p and its verification v.
func (r payouts) Create(ctx context.Context, p payout.Payout, v payout.Verification) error {
	b := p.Beneficiary
	_, err := r.q.ExecContext(ctx, `
		INSERT INTO payouts (id, account_id, customer_id, client_id, type, amount, currency, payment_reference, internal_reference,
			beneficiary_name, beneficiary_iban, beneficiary_sort_code, beneficiary_account_number, status, outcome,
			verification_id, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)`,
		p.ID, p.AccountID, p.CustomerID, p.ClientID, string(p.Type), p.Amount, p.Currency, p.PaymentReference, p.InternalReference,
		b.Name, b.IBAN, b.SortCode, b.AccountNumber, string(p.Status), string(p.Outcome), p.VerificationID,
		micros(p.CreatedAt), micros(p.UpdatedAt))
	if err := translate(err, "payout "+p.ID); err != nil {
		return err
	}
	audit.Resource(ctx, "payout", p.ID)
	_, err = r.q.ExecContext(ctx, `
		INSERT INTO account_holder_verifications (id, transaction_id, customer_id, status, requested_name, returned_name, result,
			executed_at, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
		v.ID, v.TransactionID, v.CustomerID, string(v.Status), v.Requested, v.Returned, string(v.Result),
		micros(v.ExecutedAt), micros(v.ExpiresAt))
	return translate(err, "account holder verification "+v.ID)
}

// Move saves p's status while the stored one is from.
func (r payouts) Move(ctx context.Context, p payout.Payout, from payout.Status) error {
	res, err := r.q.ExecContext(ctx, `UPDATE payouts SET status = $2, updated_at = $3 WHERE id = $1 AND status = $4`,
		p.ID, string(p.Status), micros(p.UpdatedAt), string(from))
	if err := expectOne(res, err, "payout "+p.ID); errs.Is(err, errs.NotFound) {
		return errs.E(errs.Conflict, "The payout changed meanwhile; it is no longer %s.", from)
	} else if err != nil {
		return err
	}
	return nil
}

const payoutColumns = `p.id, p.account_id, p.customer_id, p.client_id, p.type, p.amount, p.currency, p.payment_reference,
	p.internal_reference, p.beneficiary_name, p.beneficiary_iban, p.beneficiary_sort_code, p.beneficiary_account_number,
	p.status, p.outcome, p.verification_id, p.created_at, p.updated_at`

func scanPayout(row interface{ Scan(...any) error }) (payout.Payout, error) {
	var p payout.Payout
	var typ, status, outcome string
	var created, updated int64
	b := &p.Beneficiary
	err := row.Scan(&p.ID, &p.AccountID, &p.CustomerID, &p.ClientID, &typ, &p.Amount, &p.Currency, &p.PaymentReference,
		&p.InternalReference, &b.Name, &b.IBAN, &b.SortCode, &b.AccountNumber, &status, &outcome, &p.VerificationID, &created, &updated)
	p.Type, p.Status, p.Outcome = payout.Type(typ), payout.Status(status), payout.Status(outcome)
	p.CreatedAt, p.UpdatedAt = fromMicros(created), fromMicros(updated)
	return p, err
}

// Get reads a payout visible to viewerCustomerID.
func (r payouts) Get(ctx context.Context, viewerCustomerID, id string) (payout.Payout, error) {
	p, err := scanPayout(r.q.QueryRowContext(ctx, `SELECT `+payoutColumns+` FROM payouts p WHERE p.id = $1 AND `+
		visibleTo("p.customer_id", 2), id, viewerCustomerID))
	return p, translate(err, "payout "+id)
}

// List returns one page of the payouts visible to viewerCustomerID, newest
// first, read from the payouts_customer index in order, or from
// payouts_account for one account (readPage).
func (r payouts) List(ctx context.Context, viewerCustomerID string, f payout.Filter) (paging.Page[payout.Payout], error) {
	l := keysetList{what: "payouts", table: "payouts", alias: "p", columns: payoutColumns,
		orderIndex: "payouts_customer", viewer: viewerCustomerID, from: f.CreatedFrom, to: f.CreatedTo}
	if f.AccountID != "" {
		l.scope, l.scopeID = "account_id", f.AccountID
		l.rowConds = append(l.rowConds, visibleCond(viewerCustomerID))
	}
	l.equal("status", string(f.Status))
	return readPage(ctx, r.s, r.tx, l, f.Page, f.Limit, f.After, scanPayout,
		func(p payout.Payout) paging.Position { return paging.Position{CreatedAt: p.CreatedAt, ID: p.ID} })
}

const verificationColumns = `v.id, v.transaction_id, v.customer_id, v.status, v.requested_name, v.returned_name, v.result,
	v.executed_at, v.expires_at, v.decision_type, v.performer_id, v.performer_name, v.performer_type, v.decided_at`

func scanVerification(row interface{ Scan(...any) error }) (payout.Verification, error) {
	var v payout.Verification
	var status, result, dtype, pid, pname, ptype string
	var executed, expires int64
	var decided sql.NullInt64
	err := row.Scan(&v.ID, &v.TransactionID, &v.CustomerID, &status, &v.Requested, &v.Returned, &result,
		&executed, &expires, &dtype, &pid, &pname, &ptype, &decided)
	v.Status, v.Result = payout.VerificationStatus(status), payout.Result(result)
	v.ExecutedAt, v.ExpiresAt = fromMicros(executed), fromMicros(expires)
	if dtype != "" {
		v.Decision = &payout.Decision{Type: payout.DecisionType(dtype), CreatedAt: fromMicros(decided.Int64),
			Performer: payout.Performer{ID: pid, Name: pname, Type: payout.PerformerType(ptype)}}
	}
	return v, err
}

// Verification reads a verification visible to viewerCustomerID.
func (r payouts) Verification(ctx context.Context, viewerCustomerID, id string) (payout.Verification, error) {
	v, err := scanVerification(r.q.QueryRowContext(ctx, `SELECT `+verificationColumns+` FROM account_holder_verifications v
		WHERE v.id = $1 AND `+visibleTo("v.customer_id", 2), id, viewerCustomerID))
	return v, translate(err, "account holder verification "+id)
}

// VerificationsOf lists the verifications of a payout visible to viewerCustomerID.
func (r payouts) VerificationsOf(ctx context.Context, viewerCustomerID, transactionID string) ([]payout.Verification, error) {
	rows, err := r.q.QueryContext(ctx, `SELECT `+verificationColumns+` FROM account_holder_verifications v
		WHERE v.transaction_id = $1 AND `+visibleTo("v.customer_id", 2)+` ORDER BY v.executed_at, v.id`, transactionID, viewerCustomerID)
	return scanVerifications(rows, err, "account holder verifications of payout "+transactionID)
}

// scanVerifications reads the rows of a verification query.
func scanVerifications(rows *sql.Rows, err error, what string) ([]payout.Verification, error) {
	if err != nil {
		return nil, translate(err, what)
	}
	defer rows.Close()
	out := []payout.Verification{}
	for rows.Next() {
		v, err := scanVerification(rows)
		if err != nil {
			return nil, translate(err, what)
		}
		out = append(out, v)
	}
	return out, translate(rows.Err(), what)
}

// Decide saves v's decision while it has none.
func (r payouts) Decide(ctx context.Context, v payout.Verification) error {
	if v.Decision == nil {
		return fmt.Errorf("account holder verification %s: no decision to save", v.ID)
	}
	d := v.Decision
	res, err := r.q.ExecContext(ctx, `UPDATE account_holder_verifications
		SET decision_type = $2, performer_id = $3, performer_name = $4, performer_type = $5, decided_at = $6
		WHERE id = $1 AND decision_type = ''`,
		v.ID, string(d.Type), d.Performer.ID, d.Performer.Name, string(d.Performer.Type), micros(d.CreatedAt))
	if err := expectOne(res, err, "account holder verification "+v.ID); errs.Is(err, errs.NotFound) {
		return errs.E(errs.NotModifiable, "The account holder verification has a decision already.")
	} else if err != nil {
		return err
	}
	return nil
}

// DueVerifications lists undecided verifications of CREATED payouts whose
// expiry has passed on their tenant's clock.
func (r payouts) DueVerifications(ctx context.Context, now time.Time, limit int) ([]payout.Verification, error) {
	rows, err := r.q.QueryContext(ctx, `SELECT `+verificationColumns+` FROM account_holder_verifications v
		JOIN payouts p ON p.id = v.transaction_id
		WHERE v.decision_type = '' AND v.result <> $1 AND p.status = $2
		AND v.expires_at <= $3 AND v.expires_at <= CAST($4 AS BIGINT) + `+tenantOffsetSQL("v.customer_id")+`
		ORDER BY v.expires_at LIMIT $5`,
		string(payout.Match), string(payout.Created), micros(now)+maxOffsetMicros, micros(now), limit)
	return scanVerifications(rows, err, "due account holder verifications")
}

// Received lists up to limit RECEIVED payments expected on accountID,
// oldest first.
func (r payouts) Received(ctx context.Context, accountID string, limit int) ([]payment.Payment, error) {
	rows, err := r.q.QueryContext(ctx, `SELECT `+paymentColumns+` FROM payments p
		WHERE p.connect_account_id = $1 AND p.status = $2 ORDER BY p.created_at, p.id LIMIT $3`,
		accountID, string(payment.StatusReceived), limit)
	if err != nil {
		return nil, translate(err, "received payments of account "+accountID)
	}
	defer rows.Close()
	out := []payment.Payment{}
	for rows.Next() {
		p, err := scanPayment(rows)
		if err != nil {
			return nil, translate(err, "received payments of account "+accountID)
		}
		out = append(out, p)
	}
	return out, translate(rows.Err(), "received payments of account "+accountID)
}

// Settled links a settled payment to the SETTLEMENT payout that settled it.
func (r payouts) Settled(ctx context.Context, payoutID, paymentID string, amount int64, at time.Time) error {
	_, err := r.q.ExecContext(ctx, `INSERT INTO payout_settlements (payment_id, payout_id, amount, settled_at)
		VALUES ($1, $2, $3, $4)`, paymentID, payoutID, amount, micros(at))
	return translate(err, "settlement of payment "+paymentID)
}

// SettlementsOf reads the payments each of payoutIDs settled, each
// payout's oldest payment first (the order it settled them in).
func (r payouts) SettlementsOf(ctx context.Context, payoutIDs []string) (map[string][]payout.Settlement, error) {
	out := map[string][]payout.Settlement{}
	if len(payoutIDs) == 0 {
		return out, nil
	}
	marks := make([]string, len(payoutIDs))
	args := make([]any, len(payoutIDs))
	for i, id := range payoutIDs {
		marks[i], args[i] = fmt.Sprintf("$%d", i+1), id
	}
	rows, err := r.q.QueryContext(ctx, `SELECT s.payout_id, s.payment_id, s.amount FROM payout_settlements s
		JOIN payments p ON p.id = s.payment_id
		WHERE s.payout_id IN (`+strings.Join(marks, ", ")+`) ORDER BY s.payout_id, p.created_at, p.id`, args...)
	if err != nil {
		return nil, translate(err, "settlements of payouts")
	}
	defer rows.Close()
	for rows.Next() {
		var payoutID string
		var st payout.Settlement
		if err := rows.Scan(&payoutID, &st.PaymentID, &st.Amount); err != nil {
			return nil, translate(err, "settlements of payouts")
		}
		out[payoutID] = append(out[payoutID], st)
	}
	return out, translate(rows.Err(), "settlements of payouts")
}
