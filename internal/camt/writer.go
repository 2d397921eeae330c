package camt

import (
	"encoding/xml"
	"fmt"
	"io"
	"time"

	"github.com/bankrail/bankrail/internal/iso"
)

// WrittenVersion is the version WriteNotification writes: camt.054.001.08,
// the current one (SEPA's 2019 rulebooks and SWIFT's CBPR+ moved to it);
// Read reads it like the older ones banks still send.
const WrittenVersion = 8

// Advice is a camt.054 debit/credit notification of one account.
type Advice struct {
	MsgID    string    // GrpHdr/MsgId, at most 35 characters, unique per file
	ID       string    // Ntfctn/Id; MsgID when empty
	Created  time.Time // GrpHdr/CreDtTm and Ntfctn/CreDtTm
	IBAN     string    // the account
	Currency string    // the account's currency
	Entries  []AdviceEntry
}

// AdviceEntry is one booked entry of an advice, of one transaction.
type AdviceEntry struct {
	NtryRef     string // optional
	AcctSvcrRef string // the bank's reference: the entry's identity for the importer
	Amount      int64  // minor units, positive
	Credit      bool
	BookingDate time.Time
	EndToEndID  string // the transfer's EndToEndId (optional)
	Reference   string // remittance information, unstructured (at most 140 characters)
	Party       Party  // the debtor of a credit, the creditor of a debit
	Return      bool   // the transaction returns an earlier one (RtrInf)
	Reason      string // the return's ISO reason code, e.g. AC04
}

// WriteNotification writes a as a camt.054.001.08 document that validates
// against the official schema. Text longer than a field allows is cut to
// it; an amount must be positive and the currency ISO 4217.
func WriteNotification(w io.Writer, a Advice) error {
	if _, ok := iso.CurrencyOf(a.Currency); !ok {
		return fmt.Errorf("camt.054: currency %q is not ISO 4217", a.Currency)
	}
	id := a.ID
	if id == "" {
		id = a.MsgID
	}
	created := a.Created.UTC().Format("2006-01-02T15:04:05Z")
	n := xNtfctn{ID: cut(id, 35), CreDtTm: created,
		Acct: xAcct{IBAN: iso.NormalizeIBAN(a.IBAN), Ccy: a.Currency}}
	for i, e := range a.Entries {
		if e.Amount <= 0 {
			return fmt.Errorf("camt.054: entry %d has amount %d: amounts are positive", i+1, e.Amount)
		}
		n.Ntry = append(n.Ntry, entryOf(e, a.Currency))
	}
	doc := xDocument{Xmlns: fmt.Sprintf("%scamt.054.001.%02d", namespacePrefix, WrittenVersion),
		Msg: xMsg{GrpHdr: xGrpHdr{MsgID: cut(a.MsgID, 35), CreDtTm: created}, Ntfctn: n}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return fmt.Errorf("camt.054: %w", err)
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("camt.054: %w", err)
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("camt.054: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func entryOf(e AdviceEntry, ccy string) xNtry {
	ind, fmly, sub := "DBIT", "ICDT", "ESCT"
	if e.Credit {
		ind, fmly = "CRDT", "RCDT"
	}
	if e.Return {
		sub = "RRTN"
	}
	amt := xAmt{Ccy: ccy, Value: decimal(e.Amount, ccy)}
	day := e.BookingDate.Format("2006-01-02")
	tx := xTxDtls{Amt: amt, CdtDbtInd: ind}
	if e.AcctSvcrRef != "" || e.EndToEndID != "" {
		tx.Refs = &xRefs{AcctSvcrRef: cut(e.AcctSvcrRef, 35), EndToEndID: cut(e.EndToEndID, 35)}
	}
	if e.Party != (Party{}) {
		p := &xParty{Nm: cut(e.Party.Name, 140)}
		var acct *xPartyAcct
		if e.Party.IBAN != "" {
			acct = &xPartyAcct{IBAN: iso.NormalizeIBAN(e.Party.IBAN)}
		}
		tx.RltdPties = &xRltdPties{}
		if e.Credit {
			tx.RltdPties.Dbtr, tx.RltdPties.DbtrAcct = p, acct
		} else {
			tx.RltdPties.Cdtr, tx.RltdPties.CdtrAcct = p, acct
		}
		if p.Nm == "" {
			tx.RltdPties.Dbtr, tx.RltdPties.Cdtr = nil, nil
		}
	}
	if e.Reference != "" {
		tx.RmtInf = &xRmtInf{Ustrd: cut(e.Reference, 140)}
	}
	if e.Return {
		tx.RtrInf = &xRtrInf{}
		if e.Reason != "" {
			tx.RtrInf.Rsn = &xCode{Cd: cut(e.Reason, 4)}
		}
	}
	return xNtry{NtryRef: cut(e.NtryRef, 35), Amt: amt, CdtDbtInd: ind, Sts: xCode{Cd: string(Booked)},
		BookgDt: xDate{Dt: day}, ValDt: xDate{Dt: day}, AcctSvcrRef: cut(e.AcctSvcrRef, 35),
		BkTxCd:   xBkTxCd{Domn: xDomn{Cd: "PMNT", Fmly: xFmly{Cd: fmly, SubFmlyCd: sub}}},
		NtryDtls: xNtryDtls{TxDtls: []xTxDtls{tx}}}
}

// cut shortens s to at most n characters (runes).
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}
