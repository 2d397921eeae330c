package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/bankrail/bankrail/internal/channel"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/paging"
)

// channels and channelPayments are the repositories of deposit channels
// and their deposits over a unit of work's transaction or the read pool.
type (
	channels struct {
		s *Store
		q querier
	}
	channelPayments struct {
		s  *Store
		q  querier
		tx *sql.Tx // nil outside a unit of work
	}
)

var (
	_ channel.Repository        = channels{}
	_ channel.PaymentRepository = channelPayments{}
	_ channel.Repos             = (*Tx)(nil)
)

// Channels is the channel repository inside the transaction.
func (t *Tx) Channels() channel.Repository { return channels{s: t.s, q: t.tx} }

// ChannelPayments is the channel payment repository inside the transaction.
func (t *Tx) ChannelPayments() channel.PaymentRepository {
	return channelPayments{s: t.s, q: t.tx, tx: t.tx}
}

// Channels reads channels outside any unit of work.
func (s *Store) Channels() channel.Repository { return channels{s: s, q: s.read} }

// ChannelPayments reads channel payments outside any unit of work.
func (s *Store) ChannelPayments() channel.PaymentRepository { return channelPayments{s: s, q: s.read} }

// Create inserts c.
func (r channels) Create(ctx context.Context, c channel.Channel) error {
	_, err := r.q.ExecContext(ctx, `
		INSERT INTO channels (id, customer_id, client_id, token, network, currency, address, status, end_user_reference, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		c.ID, c.CustomerID, c.ClientID, string(c.Token), string(c.Network), c.Currency, c.Address, string(c.Status),
		c.EndUserReference, micros(c.CreatedAt))
	return translate(err, "channel "+c.ID)
}

const channelColumns = `c.id, c.customer_id, c.client_id, c.token, c.network, c.currency, c.address, c.status, c.end_user_reference, c.created_at`

func scanChannel(row interface{ Scan(...any) error }) (channel.Channel, error) {
	var c channel.Channel
	var token, network, status string
	var created int64
	err := row.Scan(&c.ID, &c.CustomerID, &c.ClientID, &token, &network, &c.Currency, &c.Address, &status, &c.EndUserReference, &created)
	c.Token, c.Network, c.Status, c.CreatedAt = channel.Token(token), channel.Network(network), channel.Status(status), fromMicros(created)
	return c, err
}

// Get reads a channel visible to viewerCustomerID.
func (r channels) Get(ctx context.Context, viewerCustomerID, id string) (channel.Channel, error) {
	c, err := scanChannel(r.q.QueryRowContext(ctx, `SELECT `+channelColumns+` FROM channels c WHERE c.id = $1 AND `+
		visibleTo("c.customer_id", 2), id, viewerCustomerID))
	return c, translate(err, "channel "+id)
}

// GetByID reads any channel.
func (r channels) GetByID(ctx context.Context, id string) (channel.Channel, error) {
	c, err := scanChannel(r.q.QueryRowContext(ctx, `SELECT `+channelColumns+` FROM channels c WHERE c.id = $1`, id))
	return c, translate(err, "channel "+id)
}

// List returns one page of the channels visible to viewerCustomerID,
// newest first, and the total (one read transaction: both agree), read
// from the channels_customer_created index in order (readPage).
func (r channels) List(ctx context.Context, viewerCustomerID string, f channel.ListFilter) (paging.Page[channel.Channel], error) {
	l := keysetList{what: "channels", table: "channels", alias: "c", columns: channelColumns,
		orderIndex: "channels_customer_created", viewer: viewerCustomerID}
	l.only(f.CustomerID)
	return readPage(ctx, r.s, nil, l, f.Page, f.Limit, f.After, scanChannel,
		func(c channel.Channel) paging.Position { return paging.Position{CreatedAt: c.CreatedAt, ID: c.ID} })
}

// Create inserts a PROCESSING deposit and its detection event.
func (r channelPayments) Create(ctx context.Context, p channel.Payment) error {
	_, err := r.q.ExecContext(ctx, `
		INSERT INTO channel_payments (id, channel_id, customer_id, status, end_user_reference, hash, paid_micros, token,
			detected_at, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
		p.ID, p.ChannelID, p.CustomerID, string(p.Status), p.EndUserReference, p.Hash, int64(p.Paid), string(p.Token),
		micros(p.DetectedAt), micros(p.CreatedAt), micros(p.UpdatedAt))
	if err := translate(err, "channel payment "+p.ID); err != nil {
		return err
	}
	return appendNextEvent(ctx, r.q, p.CustomerID, channel.SubjectPayment, p.ID, channel.EventDetected, string(p.Status), p.DetectedAt)
}

// Complete saves p COMPLETED, with its event, while the stored one is
// PROCESSING.
func (r channelPayments) Complete(ctx context.Context, p channel.Payment) error {
	if p.Credited == nil || p.Rate == nil {
		return fmt.Errorf("store: channel payment %s completed without its credit and rate", p.ID)
	}
	res, err := r.q.ExecContext(ctx, `
		UPDATE channel_payments SET status = $2, confirmed_at = $3, credited_amount = $4, credited_currency = $5,
			rate_value = $6, rate_pair = $7, transaction_id = $8, updated_at = $9
		WHERE id = $1 AND status = $10`,
		p.ID, string(p.Status), micros(p.ConfirmedAt), p.Credited.Amount, p.Credited.Currency, p.Rate.Value, p.Rate.Pair,
		p.TransactionID, micros(p.UpdatedAt), string(channel.Processing))
	if err := expectOne(res, err, "processing channel payment "+p.ID); errs.Is(err, errs.NotFound) {
		return errs.E(errs.Conflict, "The channel payment %s was confirmed meanwhile.", p.ID)
	} else if err != nil {
		return err
	}
	return appendNextEvent(ctx, r.q, p.CustomerID, channel.SubjectPayment, p.ID, channel.EventCompleted, string(p.Status), p.UpdatedAt)
}

const channelPaymentColumns = `p.id, p.channel_id, p.customer_id, p.status, p.end_user_reference, p.hash, p.paid_micros, p.token,
	p.detected_at, p.confirmed_at, p.credited_amount, p.credited_currency, p.rate_value, p.rate_pair, p.transaction_id,
	p.created_at, p.updated_at`

func scanChannelPayment(row interface{ Scan(...any) error }) (channel.Payment, error) {
	var p channel.Payment
	var status, token string
	var paid, detected, created, updated int64
	var confirmed, credited sql.NullInt64
	var creditedCur, rateValue, ratePair sql.NullString
	err := row.Scan(&p.ID, &p.ChannelID, &p.CustomerID, &status, &p.EndUserReference, &p.Hash, &paid, &token,
		&detected, &confirmed, &credited, &creditedCur, &rateValue, &ratePair, &p.TransactionID, &created, &updated)
	p.Status, p.Token, p.Paid = channel.PaymentStatus(status), channel.Token(token), channel.Amount(paid)
	p.DetectedAt, p.CreatedAt, p.UpdatedAt = fromMicros(detected), fromMicros(created), fromMicros(updated)
	if confirmed.Valid {
		p.ConfirmedAt = fromMicros(confirmed.Int64)
	}
	if credited.Valid {
		p.Credited = &channel.Credit{Amount: credited.Int64, Currency: creditedCur.String}
		p.Rate = &channel.Rate{Value: rateValue.String, Pair: ratePair.String}
	}
	return p, err
}

// Get reads a deposit visible to viewerCustomerID.
func (r channelPayments) Get(ctx context.Context, viewerCustomerID, id string) (channel.Payment, error) {
	p, err := scanChannelPayment(r.q.QueryRowContext(ctx, `SELECT `+channelPaymentColumns+` FROM channel_payments p
		WHERE p.id = $1 AND `+visibleTo("p.customer_id", 2), id, viewerCustomerID))
	return p, translate(err, "channel payment "+id)
}

// GetByID reads any deposit.
func (r channelPayments) GetByID(ctx context.Context, id string) (channel.Payment, error) {
	p, err := scanChannelPayment(r.q.QueryRowContext(ctx, `SELECT `+channelPaymentColumns+` FROM channel_payments p WHERE p.id = $1`, id))
	return p, translate(err, "channel payment "+id)
}

// List returns one page of a channel's deposits, oldest first, read from
// the channel_payments_channel index in order; without a total.
func (r channelPayments) List(ctx context.Context, channelID string, page, limit int, after *paging.Position) (paging.Page[channel.Payment], error) {
	l := keysetList{what: "payments of channel " + channelID, table: "channel_payments", alias: "p",
		columns: channelPaymentColumns, scope: "channel_id", scopeID: channelID, oldestFirst: true, uncounted: true}
	return readPage(ctx, r.s, r.tx, l, page, limit, after, scanChannelPayment,
		func(p channel.Payment) paging.Position { return paging.Position{CreatedAt: p.CreatedAt, ID: p.ID} })
}

// DueToConfirm returns ids of PROCESSING deposits detected at or before
// cutoff on their customer's clock (cutoff plus the tenant's offset).
func (r channelPayments) DueToConfirm(ctx context.Context, cutoff time.Time, limit int) ([]string, error) {
	return queryIDs(ctx, r.q, "channel payments due to confirm", `SELECT id FROM channel_payments
		WHERE status = 'PROCESSING' AND detected_at <= $3
			AND detected_at <= CAST($1 AS BIGINT) + `+tenantOffsetSQL("channel_payments.customer_id")+`
		ORDER BY detected_at, id LIMIT $2`, micros(cutoff), limit, micros(cutoff)+maxOffsetMicros)
}
