package camttest

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"strings"

	"github.com/bankrail/bankrail/internal/money"
)

// Stmt is one Stmt (camt.053) or Ntfctn (camt.054) that Write writes.
type Stmt struct {
	IBAN     string
	Currency string // default EUR
	Closing  *int64 // closing booked balance in minor units, if any (camt.053 only)
	Entries  []Entry
}

// Entry is one Ntry.
type Entry struct {
	AcctSvcrRef string
	NtryRef     string
	Minor       int64  // the amount in minor units (2 decimals)...
	Amount      string // ...or this text exactly, when set
	Currency    string // default: the statement's
	Credit      bool
	Status      string // default BOOK
	Booking     string // BookgDt/Dt, default 2026-11-26
	Txs         []Tx   // NtryDtls/TxDtls; none: the entry alone
}

// Tx is one TxDtls.
type Tx struct {
	Minor      int64 // 0: no amount of its own
	EndToEndID string
	Ustrd      []string
	StrdRef    string
	Return     bool
	Reason     string
	Name, IBAN string // the counterparty
}

// Write writes a camt.05X.001.0V document (kind 53 or 54, version 2 to 8)
// (a bufio.Writer's errors stick: Flush returns the first)
// of stmts to w, as gen.sh's fixtures are shaped, streaming.
func Write(w io.Writer, kind, version int, msgID string, stmts []Stmt) error {
	b := bufio.NewWriterSize(w, 64<<10)
	root, rep := "BkToCstmrStmt", "Stmt"
	if kind == 54 {
		root, rep = "BkToCstmrDbtCdtNtfctn", "Ntfctn"
	}
	_, _ = fmt.Fprintf(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Document xmlns=\"urn:iso:std:iso:20022:tech:xsd:camt.%03d.001.%02d\">\n<%s>\n<GrpHdr><MsgId>%s</MsgId><CreDtTm>2026-11-26T18:00:00</CreDtTm></GrpHdr>\n",
		kind, version, root, esc(msgID))
	for i, s := range stmts {
		ccy := s.Currency
		if ccy == "" {
			ccy = "EUR"
		}
		_, _ = fmt.Fprintf(b, "<%s><Id>%s-%d</Id><CreDtTm>2026-11-26T18:00:00</CreDtTm><Acct><Id><IBAN>%s</IBAN></Id></Acct>\n", rep, esc(msgID), i+1, s.IBAN)
		if kind == 53 {
			closing, ind := int64(0), "CRDT"
			if s.Closing != nil {
				closing = *s.Closing
			}
			if closing < 0 {
				closing, ind = -closing, "DBIT"
			}
			typ := "OPBD"
			if s.Closing != nil {
				typ = "CLBD"
			}
			_, _ = fmt.Fprintf(b, "<Bal><Tp><CdOrPrtry><Cd>%s</Cd></CdOrPrtry></Tp><Amt Ccy=\"%s\">%s</Amt><CdtDbtInd>%s</CdtDbtInd><Dt><Dt>2026-11-26</Dt></Dt></Bal>\n",
				typ, ccy, dec(closing), ind)
		}
		for _, e := range s.Entries {
			writeEntry(b, version, ccy, e)
		}
		_, _ = fmt.Fprintf(b, "</%s>\n", rep)
	}
	_, _ = fmt.Fprintf(b, "</%s>\n</Document>\n", root)
	return b.Flush()
}

func writeEntry(b *bufio.Writer, version int, ccy string, e Entry) {
	if e.Currency != "" {
		ccy = e.Currency
	}
	amt := e.Amount
	if amt == "" {
		amt = dec(e.Minor)
	}
	ind, status, day := "DBIT", e.Status, e.Booking
	if e.Credit {
		ind = "CRDT"
	}
	if status == "" {
		status = "BOOK"
	}
	if day == "" {
		day = "2026-11-26"
	}
	_, _ = b.WriteString("<Ntry>")
	if e.NtryRef != "" {
		_, _ = fmt.Fprintf(b, "<NtryRef>%s</NtryRef>", esc(e.NtryRef))
	}
	_, _ = fmt.Fprintf(b, "<Amt Ccy=\"%s\">%s</Amt><CdtDbtInd>%s</CdtDbtInd>", ccy, amt, ind)
	if version <= 4 {
		_, _ = fmt.Fprintf(b, "<Sts>%s</Sts>", status)
	} else {
		_, _ = fmt.Fprintf(b, "<Sts><Cd>%s</Cd></Sts>", status)
	}
	_, _ = fmt.Fprintf(b, "<BookgDt><Dt>%s</Dt></BookgDt><ValDt><Dt>%s</Dt></ValDt>", day, day)
	if e.AcctSvcrRef != "" {
		_, _ = fmt.Fprintf(b, "<AcctSvcrRef>%s</AcctSvcrRef>", esc(e.AcctSvcrRef))
	}
	fam := "RCDT"
	if !e.Credit {
		fam = "ICDT"
	}
	_, _ = fmt.Fprintf(b, "<BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>%s</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly></Domn></BkTxCd>", fam)
	if len(e.Txs) > 0 {
		_, _ = b.WriteString("<NtryDtls>")
		for _, t := range e.Txs {
			if t.Minor == 0 && len(e.Txs) == 1 && e.Amount == "" && version >= 3 {
				t.Minor = e.Minor // the schemas from .03 on want the transaction's amount
			}
			writeTx(b, version, ccy, ind, t)
		}
		_, _ = b.WriteString("</NtryDtls>")
	}
	_, _ = b.WriteString("</Ntry>\n")
}

func writeTx(b *bufio.Writer, version int, ccy, ind string, t Tx) {
	_, _ = b.WriteString("<TxDtls>")
	if t.EndToEndID != "" {
		_, _ = fmt.Fprintf(b, "<Refs><EndToEndId>%s</EndToEndId></Refs>", esc(t.EndToEndID))
	}
	if t.Minor > 0 {
		if version == 2 {
			_, _ = fmt.Fprintf(b, "<AmtDtls><TxAmt><Amt Ccy=\"%s\">%s</Amt></TxAmt></AmtDtls>", ccy, dec(t.Minor))
		} else {
			_, _ = fmt.Fprintf(b, "<Amt Ccy=\"%s\">%s</Amt><CdtDbtInd>%s</CdtDbtInd>", ccy, dec(t.Minor), ind)
		}
	}
	if t.Name != "" || t.IBAN != "" {
		role := "Dbtr"
		if ind == "DBIT" {
			role = "Cdtr"
		}
		_, _ = b.WriteString("<RltdPties>")
		if t.Name != "" {
			if version >= 7 {
				_, _ = fmt.Fprintf(b, "<%s><Pty><Nm>%s</Nm></Pty></%s>", role, esc(t.Name), role)
			} else {
				_, _ = fmt.Fprintf(b, "<%s><Nm>%s</Nm></%s>", role, esc(t.Name), role)
			}
		}
		if t.IBAN != "" {
			_, _ = fmt.Fprintf(b, "<%sAcct><Id><IBAN>%s</IBAN></Id></%sAcct>", role, t.IBAN, role)
		}
		_, _ = b.WriteString("</RltdPties>")
	}
	if len(t.Ustrd) > 0 || t.StrdRef != "" {
		_, _ = b.WriteString("<RmtInf>")
		for _, u := range t.Ustrd {
			_, _ = fmt.Fprintf(b, "<Ustrd>%s</Ustrd>", esc(u))
		}
		if t.StrdRef != "" {
			_, _ = fmt.Fprintf(b, "<Strd><CdtrRefInf><Ref>%s</Ref></CdtrRefInf></Strd>", esc(t.StrdRef))
		}
		_, _ = b.WriteString("</RmtInf>")
	}
	if t.Return {
		_, _ = b.WriteString("<RtrInf>")
		if t.Reason != "" {
			_, _ = fmt.Fprintf(b, "<Rsn><Cd>%s</Cd></Rsn>", esc(t.Reason))
		}
		_, _ = b.WriteString("</RtrInf>")
	}
	_, _ = b.WriteString("</TxDtls>")
}

// String is Write into a string (for small documents).
func String(kind, version int, msgID string, stmts ...Stmt) string {
	var sb strings.Builder
	_ = Write(&sb, kind, version, msgID, stmts) // a strings.Builder does not fail
	return sb.String()
}

func dec(minor int64) string { return money.FormatDecimal(minor, 2) }

func esc(s string) string { return html.EscapeString(s) }
