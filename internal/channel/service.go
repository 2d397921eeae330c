package channel

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"

	"github.com/google/uuid"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/ids"
	"github.com/bankrail/bankrail/internal/paging"
)

// MaxReferenceLength bounds endUser.reference.
const MaxReferenceLength = 255

// Page bounds of GET /channels/{id}/payments (the contract).
const (
	DefaultPageLimit = 50
	MaxPageLimit     = 100
	MaxPage          = 100
)

// Service runs the channel use cases. Reads go to the repositories; every
// change runs in one unit of work of inTx with its ledger postings and
// notifications.
type Service struct {
	channels Repository
	payments PaymentRepository
	inTx     Transactor
	clock    clock.Clock
}

// NewService returns the channel service.
func NewService(channels Repository, payments PaymentRepository, inTx Transactor, clk clock.Clock) *Service {
	return &Service{channels: channels, payments: payments, inTx: inTx, clock: clk}
}

// Creator is who creates a channel: the token's customer and application.
type Creator struct {
	CustomerID string
	ClientID   string
}

// CreateInput is the body of POST /channels.
type CreateInput struct {
	Token            string
	Network          string
	Currency         string
	EndUserReference string
}

func oneOf[T ~string](v string, set []T) bool {
	for _, s := range set {
		if string(s) == v {
			return true
		}
	}
	return false
}

// CheckCreate validates in (VALIDATION_FAILURE with every field's fault).
func CheckCreate(in CreateInput) error {
	var v errs.Validation
	enum := func(path, val string, ok bool, allowed string) {
		switch {
		case val == "":
			v.Add(errs.ValueRequired, path, "%s is required: one of %s.", path, allowed)
		case !ok:
			v.Add(errs.InvalidValue, path, "%s must be one of %s.", path, allowed)
		}
	}
	enum("token", in.Token, oneOf(in.Token, Tokens), "USDC, EURC")
	enum("network", in.Network, oneOf(in.Network, Networks), "ETH, SOL, BASE, POLYGON")
	enum("currency", in.Currency, oneOf(in.Currency, Currencies), "EUR, GBP, USD")
	switch {
	case strings.TrimSpace(in.EndUserReference) == "":
		v.Add(errs.ValueRequired, "endUser.reference", "endUser.reference is required: your reference of the end user.")
	case len([]rune(in.EndUserReference)) > MaxReferenceLength:
		v.Add(errs.TooLong, "endUser.reference", "endUser.reference must be at most %d characters long.", MaxReferenceLength)
	}
	return v.Err()
}

// Create opens an ACTIVE channel with its deposit address.
func (s *Service) Create(ctx context.Context, c Creator, in CreateInput) (Channel, error) {
	if _, err := identity.Authorize(ctx, identity.ChannelCreate); err != nil {
		return Channel{}, err
	}
	if err := CheckCreate(in); err != nil {
		return Channel{}, err
	}
	now, err := clock.UnitTime(ctx, s.clock, c.CustomerID)
	if err != nil {
		return Channel{}, err
	}
	id := ids.New()
	ch := Channel{ID: id, CustomerID: c.CustomerID, ClientID: c.ClientID, Token: Token(in.Token),
		Network: Network(in.Network), Currency: in.Currency, Status: Active, EndUserReference: in.EndUserReference, CreatedAt: now}
	ch.Address = Address(ch.Network, ch.ID)
	err = s.inTx(ctx, func(r Repos) error { return r.Channels().Create(ctx, ch) })
	return ch, err
}

func checkID(noun, id string) error {
	if _, err := uuid.Parse(id); err != nil || len(id) != 36 {
		return errs.E(errs.MalformedPathParam, "The %s id %q is not a uuid.", noun, id)
	}
	return nil
}

// Get reads a channel of viewerCustomerID (or below it).
func (s *Service) Get(ctx context.Context, viewerCustomerID, id string) (Channel, error) {
	if _, err := identity.Authorize(ctx, identity.ChannelRead); err != nil {
		return Channel{}, err
	}
	if err := checkID("channel", id); err != nil {
		return Channel{}, err
	}
	return s.channels.Get(ctx, viewerCustomerID, strings.ToLower(id))
}

// List returns one page of the channels visible to viewerCustomerID and
// the total.
func (s *Service) List(ctx context.Context, viewerCustomerID string, f ListFilter) (paging.Page[Channel], error) {
	if _, err := identity.Authorize(ctx, identity.ChannelRead); err != nil {
		return paging.Page[Channel]{}, err
	}
	return s.channels.List(ctx, viewerCustomerID, f)
}

// DepositInput is the body of POST /sandbox/channels/{id}/deposits.
type DepositInput struct {
	Amount string
	Hash   string // optional: generated when empty
}

// CheckHash validates a transaction hash of network n: 0x + 64 hex digits
// on EVM networks, the base58 text of a 64-byte signature on SOL.
func CheckHash(n Network, h string) bool {
	if n == SOL {
		b, ok := DecodeBase58(h)
		return ok && len(b) == 64 && Base58(b) == h
	}
	if len(h) != 66 || !strings.HasPrefix(h, "0x") {
		return false
	}
	_, err := hex.DecodeString(h[2:])
	return err == nil
}

// hashOf is the generated transaction hash of deposit id on n.
func hashOf(n Network, id string) string {
	a := sha256.Sum256([]byte("bankrail/deposit/a/" + id))
	if n != SOL {
		return "0x" + hex.EncodeToString(a[:])
	}
	b := sha256.Sum256([]byte("bankrail/deposit/b/" + id))
	return Base58(append(a[:], b[:]...))
}

// Deposit is the sandbox's deposit of in on channel channelID: a
// PROCESSING channel payment, detected now, and its
// channel_payment_detected notification.
func (s *Service) Deposit(ctx context.Context, viewerCustomerID, channelID string, in DepositInput) (Payment, error) {
	if _, err := identity.Authorize(ctx, identity.SandboxAct); err != nil {
		return Payment{}, err
	}
	ch, err := s.Get(ctx, viewerCustomerID, channelID)
	if err != nil {
		return Payment{}, err
	}
	var v errs.Validation
	amount, err := ParseAmount(in.Amount)
	switch {
	case in.Amount == "":
		v.Add(errs.ValueRequired, "amount", "amount is required: a decimal string such as \"12.5\".")
	case errors.Is(err, ErrAmountRange) && strings.Trim(in.Amount, "0.") == "":
		v.Add(errs.TooLow, "amount", "%s.", ErrAmountRange)
	case errors.Is(err, ErrAmountRange):
		v.Add(errs.TooHigh, "amount", "%s.", ErrAmountRange)
	case err != nil:
		v.Add(errs.InvalidFormat, "amount", "%s.", err)
	}
	if in.Hash != "" && !CheckHash(ch.Network, in.Hash) {
		v.Add(errs.InvalidFormat, "hash", "hash must be a %s transaction hash (0x and 64 hex digits on EVM networks, base58 of 64 bytes on SOL).", ch.Network)
	}
	if err := v.Err(); err != nil {
		return Payment{}, err
	}
	now, err := clock.UnitTime(ctx, s.clock, ch.CustomerID)
	if err != nil {
		return Payment{}, err
	}
	id := ids.New()
	p := Payment{ID: id, ChannelID: ch.ID, CustomerID: ch.CustomerID, Status: Processing,
		EndUserReference: ch.EndUserReference, Hash: in.Hash, Paid: amount, Token: ch.Token,
		DetectedAt: now, CreatedAt: now, UpdatedAt: now}
	if p.Hash == "" {
		p.Hash = hashOf(ch.Network, p.ID)
	}
	err = s.inTx(ctx, func(r Repos) error {
		if err := r.ChannelPayments().Create(ctx, p); err != nil {
			return err
		}
		msg, err := message(ch, p, EventDetected)
		if err != nil {
			return err
		}
		return r.Outbox().Enqueue(ctx, now, msg)
	})
	return p, err
}

// Payment reads a channel payment of viewerCustomerID (or below it),
// confirmed first when its confirmations are due.
func (s *Service) Payment(ctx context.Context, viewerCustomerID, id string) (Payment, error) {
	if _, err := identity.Authorize(ctx, identity.ChannelRead); err != nil {
		return Payment{}, err
	}
	if err := checkID("channel payment", id); err != nil {
		return Payment{}, err
	}
	p, err := s.payments.Get(ctx, viewerCustomerID, strings.ToLower(id))
	if err != nil {
		return Payment{}, err
	}
	return s.settle(ctx, p)
}

// Payments is one page of a channel's payments, oldest first (page and
// limit already within the contract's bounds), or the page after position
// after when set; without a total.
func (s *Service) Payments(ctx context.Context, viewerCustomerID, channelID string, page, limit int, after *paging.Position) (paging.Page[Payment], error) {
	if _, err := identity.Authorize(ctx, identity.ChannelRead); err != nil {
		return paging.Page[Payment]{}, err
	}
	ch, err := s.Get(ctx, viewerCustomerID, channelID)
	if err != nil {
		return paging.Page[Payment]{}, err
	}
	out, err := s.payments.List(ctx, ch.ID, page, limit, after)
	if err != nil {
		return out, err
	}
	for i, p := range out.Items {
		if out.Items[i], err = s.settle(ctx, p); err != nil {
			return paging.Page[Payment]{}, err
		}
	}
	return out, nil
}
