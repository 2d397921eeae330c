package pain

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
)

// StatusMessage is the message name of the reports Read reads.
const StatusMessage = "pain.002.001.11"

// Outcome is what a status code means for a transfer.
type Outcome string

// Outcomes of a status code.
const (
	Accepted Outcome = "ACCEPTED" // the bank took it: it goes out (ACCP, ACSC, ACSP, ACTC, ACWC, ACFC, ACCC, ACWP, ACIS)
	Rejected Outcome = "REJECTED" // the bank refused it: it does not go out (RJCT)
	Pending  Outcome = "PENDING"  // no answer yet (PDNG, RCVD, and PART of a group: its transactions say)
)

// OutcomeOf maps an ISO 20022 payment status code (ExternalPaymentGroup
// or TransactionStatus1Code) to its outcome; an unknown code is Pending
// (nothing changes) and false.
func OutcomeOf(code string) (Outcome, bool) {
	switch code {
	case "RJCT":
		return Rejected, true
	case "ACCP", "ACSC", "ACSP", "ACTC", "ACWC", "ACFC", "ACCC", "ACWP", "ACIS":
		return Accepted, true
	case "PDNG", "RCVD", "PART":
		return Pending, true
	}
	return Pending, false
}

// Status is a status the report gives, with its reason.
type Status struct {
	Code   string // the ISO code (RJCT, ACCP, ...); empty when none was given
	Reason string // StsRsnInf: the reason code and the additional information, e.g. "AC04: account closed"
}

// Transaction is the status of one transfer.
type Transaction struct {
	PaymentInfoID string // OrgnlPmtInfId of its block
	EndToEndID    string // OrgnlEndToEndId
	Status
}

// Report is a pain.002 payment status report, read.
type Report struct {
	MsgID         string // the report's own id
	OriginalMsgID string // the MsgId of the pain.001 it answers
	OriginalName  string // OrgnlMsgNmId, e.g. pain.001.001.10
	Group         Status // of the whole file (GrpSts)
	// Payments are the statuses of whole blocks (PmtInfSts), by
	// OrgnlPmtInfId.
	Payments     map[string]Status
	Transactions []Transaction
}

// Of is the status of the transfer e2e of block pmtInf: a group RJCT
// rejects every transfer of the file whatever else is said; otherwise the
// transaction's own status, else its block's, else the group's. A status
// not given is the zero Status.
func (r Report) Of(pmtInf string, tx Status) Status {
	if r.Group.Code == "RJCT" {
		return r.Group
	}
	if tx.Code != "" {
		return tx
	}
	if s, ok := r.Payments[pmtInf]; ok && s.Code != "" {
		return s
	}
	return r.Group
}

// ErrNotStatusReport is the error of a document that is not a pain.002.
var ErrNotStatusReport = errors.New("pain: not a payment status report")

// Read reads a pain.002 report from r as a stream of tokens (only the
// statuses are kept, not the document). It accepts the message in any
// namespace version of pain.002 (banks send .003 to .011 with the same
// elements) and names what it found when the document is something else.
func Read(r io.Reader) (Report, error) {
	d := xml.NewDecoder(r)
	rep := Report{Payments: map[string]Status{}}
	root := true
	var pmtInf string
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		} else if err != nil {
			return Report{}, fmt.Errorf("pain: read the status report: %w", err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		if root {
			if se.Name.Local != "Document" || !strings.Contains(se.Name.Space, ":pain.002.") {
				return Report{}, fmt.Errorf("%w: the document is <%s> in namespace %q; %s is read here", ErrNotStatusReport, se.Name.Local, se.Name.Space, StatusMessage)
			}
			root = false
			continue
		}
		switch se.Name.Local {
		case "GrpHdr":
			var h struct {
				MsgID string `xml:"MsgId"`
			}
			if err := d.DecodeElement(&h, &se); err != nil {
				return Report{}, fmt.Errorf("pain: read GrpHdr: %w", err)
			}
			rep.MsgID = strings.TrimSpace(h.MsgID)
		case "OrgnlGrpInfAndSts":
			var g struct {
				MsgID  string       `xml:"OrgnlMsgId"`
				Name   string       `xml:"OrgnlMsgNmId"`
				Status string       `xml:"GrpSts"`
				Reason []reasonInfo `xml:"StsRsnInf"`
			}
			if err := d.DecodeElement(&g, &se); err != nil {
				return Report{}, fmt.Errorf("pain: read OrgnlGrpInfAndSts: %w", err)
			}
			rep.OriginalMsgID, rep.OriginalName = strings.TrimSpace(g.MsgID), strings.TrimSpace(g.Name)
			rep.Group = Status{Code: strings.TrimSpace(g.Status), Reason: reasons(g.Reason)}
		case "OrgnlPmtInfId":
			var id string
			if err := d.DecodeElement(&id, &se); err != nil {
				return Report{}, fmt.Errorf("pain: read OrgnlPmtInfId: %w", err)
			}
			pmtInf = strings.TrimSpace(id)
		case "PmtInfSts", "StsRsnInf":
			if err := rep.readPaymentStatus(d, se, pmtInf); err != nil {
				return Report{}, err
			}
		case "TxInfAndSts":
			var t struct {
				E2E    string       `xml:"OrgnlEndToEndId"`
				Status string       `xml:"TxSts"`
				Reason []reasonInfo `xml:"StsRsnInf"`
			}
			if err := d.DecodeElement(&t, &se); err != nil {
				return Report{}, fmt.Errorf("pain: read TxInfAndSts: %w", err)
			}
			rep.Transactions = append(rep.Transactions, Transaction{PaymentInfoID: pmtInf, EndToEndID: strings.TrimSpace(t.E2E),
				Status: Status{Code: strings.TrimSpace(t.Status), Reason: reasons(t.Reason)}})
		}
	}
	if root {
		return Report{}, fmt.Errorf("%w: the document is empty", ErrNotStatusReport)
	}
	if rep.OriginalMsgID == "" {
		return Report{}, fmt.Errorf("%w: it names no original message (OrgnlGrpInfAndSts/OrgnlMsgId)", ErrNotStatusReport)
	}
	return rep, nil
}

// readPaymentStatus reads the PmtInfSts or StsRsnInf of block pmtInf
// (these are the only ones Read meets outside the group and the
// transactions, which it decodes whole).
func (rep *Report) readPaymentStatus(d *xml.Decoder, se xml.StartElement, pmtInf string) error {
	st := rep.Payments[pmtInf]
	if se.Name.Local == "PmtInfSts" {
		var code string
		if err := d.DecodeElement(&code, &se); err != nil {
			return fmt.Errorf("pain: read PmtInfSts of %s: %w", pmtInf, err)
		}
		st.Code = strings.TrimSpace(code)
	} else {
		var ri reasonInfo
		if err := d.DecodeElement(&ri, &se); err != nil {
			return fmt.Errorf("pain: read StsRsnInf of %s: %w", pmtInf, err)
		}
		st.Reason = reasons(append([]reasonInfo{{Code: st.Reason}}, ri))
	}
	rep.Payments[pmtInf] = st
	return nil
}

// reasonInfo is one StsRsnInf.
type reasonInfo struct {
	Code  string   `xml:"Rsn>Cd"`
	Prtry string   `xml:"Rsn>Prtry"`
	Info  []string `xml:"AddtlInf"`
}

// reasons is the StsRsnInf list as one line: "AC04: account closed; ...".
func reasons(rs []reasonInfo) string {
	var parts []string
	for _, r := range rs {
		code := strings.TrimSpace(r.Code + r.Prtry)
		info := strings.TrimSpace(strings.Join(r.Info, " "))
		switch {
		case code != "" && info != "":
			parts = append(parts, code+": "+info)
		case code+info != "":
			parts = append(parts, code+info)
		}
	}
	return strings.Join(parts, "; ")
}
