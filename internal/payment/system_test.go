package payment

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/iso"
	"github.com/bankrail/bankrail/internal/money"
)

// TestEveryBankSystemIsRegistered fails when internal/bank knows a payment
// system that has no registration here (or the other way round), or a bank
// supports an unregistered system.
func TestEveryBankSystemIsRegistered(t *testing.T) {
	t.Parallel()
	for _, id := range bank.PaymentSystems {
		s, ok := SystemOf(id)
		if !ok {
			t.Errorf("payment system %s has no registration in systems.go", id)
			continue
		}
		if _, err := money.Zero(s.Currency); err != nil {
			t.Errorf("%s: currency: %v", id, err)
		}
		if s.Country != "" && !iso.IsCountry(s.Country) {
			t.Errorf("%s: country %q", id, s.Country)
		}
	}
	for _, s := range Systems() {
		if !s.ID.Valid() {
			t.Errorf("registration %s is not a payment system of internal/bank", s.ID)
		}
	}
	for _, b := range bank.Default().List(bank.Filter{}) {
		for _, id := range b.Systems {
			if _, ok := SystemOf(id); !ok {
				t.Errorf("bank %s supports unregistered %s", b.Name, id)
			}
		}
	}
}

func TestRegistryRefusesBrokenRegistrations(t *testing.T) {
	t.Parallel()
	eu, _ := SystemOf(bank.OpenBankingEU)
	noObject := eu
	noObject.ID, noObject.Object = "X", ""
	sameObject := eu
	sameObject.ID = "Y"
	for name, list := range map[string][]System{
		"same id twice":     {eu, eu},
		"same object twice": {eu, sameObject},
		"incomplete":        {noObject},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: newRegistry did not panic", name)
				}
			}()
			newRegistry(list...)
		}()
	}
}

func TestSystemForCurrency(t *testing.T) {
	t.Parallel()
	for cur, want := range map[string]bank.PaymentSystem{"GBP": bank.OpenBankingUK, "EUR": bank.OpenBankingEU,
		"USD": bank.OpenBankingEU, "": bank.OpenBankingEU} {
		if got := SystemForCurrency(cur).ID; got != want {
			t.Errorf("SystemForCurrency(%q) = %s, want %s", cur, got, want)
		}
	}
}

func TestWithInstitutionCopies(t *testing.T) {
	t.Parallel()
	for _, r := range []CreateRequest{validEU(), validUK(), {PaymentSystem: bank.OpenBankingUK}} {
		before := r.Scheme().InstitutionID
		c := r.withInstitution("ba4c0826-0000-4000-8000-000000000002")
		if got := c.Scheme().InstitutionID; got != "ba4c0826-0000-4000-8000-000000000002" {
			t.Errorf("%s: institution %q after withInstitution", r.PaymentSystem, got)
		}
		if r.Scheme().InstitutionID != before {
			t.Errorf("%s: withInstitution changed the original", r.PaymentSystem)
		}
	}
	unknown := CreateRequest{PaymentSystem: "SWIFT"}
	if c := unknown.withInstitution("x"); c.OpenBankingEU != nil || c.OpenBankingUK != nil {
		t.Errorf("withInstitution on an unknown system made an object: %+v", c)
	}
}

func TestTimeframe(t *testing.T) {
	t.Parallel()
	day := 24 * time.Hour
	for tt, want := range map[string]time.Duration{TransferFasterPayments: day, TransferSEPAInstantCredit: day,
		TransferSEPACredit: 8 * day, TransferSWIFT: 8 * day, TransferCHAPS: 3 * day, TransferBACS: 5 * day, "PIX": 8 * day} {
		if got := Timeframe(tt); got != want {
			t.Errorf("Timeframe(%q) = %v, want %v", tt, got, want)
		}
	}
	for _, s := range Systems() {
		for _, b := range []*bank.Bank{nil, {SEPAInstant: true}} {
			if tt := s.TransferType(b); Timeframe(tt) <= 0 {
				t.Errorf("%s: transfer type %q has no timeframe", s.ID, tt)
			}
		}
	}
}

// useSystems replaces the registrations for the rest of the test (which
// must not be parallel: parallel tests run after it and its cleanup).
func useSystems(t *testing.T, systems ...System) {
	t.Helper()
	old := current.Load()
	current.Store(newRegistry(systems...))
	t.Cleanup(func() { current.Store(old) })
}

// TestMadeUpSystemNeedsOnlyARegistration registers a system no file knows,
// TEST_RAIL (CHF, IBAN accounts, 35-character references), and checks that
// validation, the record, the transfer type, the receiving account and the
// legacy choice of system follow its registration alone. Its details
// object has the shape of openBankingUK (type, institutionId), so it is
// kept in that Go field under its own name: a real system adds its own
// field to CreateRequest.
func TestMadeUpSystemNeedsOnlyARegistration(t *testing.T) {
	const rail bank.PaymentSystem = "TEST_RAIL"
	const (
		railBank = "ba4c0756-0000-4000-8000-000000000001"
		ibanCH   = "CH9300762011623852957"
	)
	useSystems(t, System{ID: rail, Object: "testRail", Currency: "CHF", MaxPaymentReference: 35,
		Account: AccountIBAN, Country: "CH",
		Field:        FieldOf(func(r *CreateRequest) **OpenBankingUK { return &r.OpenBankingUK }),
		TransferType: func(*bank.Bank) string { return "TEST Rail" },
	})
	banks := bank.NewRegistry([]bank.Bank{{ID: railBank, Name: "Bank am Rhein", Country: "CH", BIC: "BARHCHZZ",
		Systems: []bank.PaymentSystem{rail}}})
	valid := func() CreateRequest {
		return CreateRequest{Currency: "CHF", Amount: ptr(int64(500)), PaymentReference: "Rechnung 7", PaymentSystem: rail,
			OpenBankingUK: &OpenBankingUK{Type: TypeBill, InstitutionID: railBank},
			Beneficiary:   &Beneficiary{Name: "Laden AG", AccountIdentifiers: &AccountIdentifiers{IBAN: ibanCH}}}
	}
	r := valid()
	if err := Validate(&r, ChannelAPI, testLimits, banks); err != nil {
		t.Fatalf("valid TEST_RAIL request: %v", fieldErrors(t, err))
	}
	for _, tt := range []struct {
		name string
		edit func(r *CreateRequest)
		want []string
	}{
		{"currency", func(r *CreateRequest) { r.Currency = "EUR" }, []string{"INVALID_VALUE currency"}},
		{"reference", func(r *CreateRequest) { r.PaymentReference = strings.Repeat("R", 36) }, []string{"TOO_LONG paymentReference"}},
		{"details", func(r *CreateRequest) { r.OpenBankingUK = nil }, []string{"VALUE_REQUIRED testRail"}},
		{"type", func(r *CreateRequest) { r.OpenBankingUK.Type = "GIFT" }, []string{"INVALID_VALUE testRail.type"}},
		{"bank", func(r *CreateRequest) { r.OpenBankingUK.InstitutionID = testBankDE }, []string{"INVALID_VALUE testRail.institutionId"}},
		{"iban", func(r *CreateRequest) { r.Beneficiary.AccountIdentifiers.IBAN = "" }, []string{"VALUE_REQUIRED beneficiary.accountIdentifiers.iban"}},
		{"system", func(r *CreateRequest) { r.PaymentSystem = bank.OpenBankingEU }, []string{"INVALID_VALUE paymentSystem"}},
	} {
		r := valid()
		tt.edit(&r)
		if got := fieldErrors(t, Validate(&r, ChannelAPI, testLimits, banks)); !slices.Equal(got, tt.want) {
			t.Errorf("%s: errors %q, want %q", tt.name, got, tt.want)
		}
	}
	p := Payment{CustomerID: "c1", Request: valid()}
	if got := TransferType(p.System(), nil); got != "TEST Rail" {
		t.Errorf("transfer type %q", got)
	}
	if acc := ReceivingAccountOf(p, banks); acc.Country != "CH" {
		t.Errorf("receiving account country %q", acc.Country)
	}
	if c := p.Request.withInstitution(railBank); c.Scheme().InstitutionID != railBank {
		t.Errorf("withInstitution: %q", c.Scheme().InstitutionID)
	}
	if SystemForCurrency("CHF").ID != rail {
		t.Error("CHF does not choose TEST_RAIL")
	}
	if m := p.Money(); m.String() != "5.00 CHF" {
		t.Errorf("money %v", m)
	}
}
