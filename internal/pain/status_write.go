package pain

import (
	"bufio"
	"fmt"
	"io"
	"time"
)

// Answer is a pain.002 report to write: the sandbox's mock bank answers
// the files it receives with one, and tests write the bank's answers.
type Answer struct {
	ID            string // the report's MsgId
	CreatedAt     time.Time
	OriginalMsgID string
	Group         Status // GrpSts; Code empty leaves it out
	Transactions  []Transaction
}

// WriteStatus writes a as a pain.002.001.11 document to w: one block per
// original payment information id, in the order the transactions name
// them.
func WriteStatus(w io.Writer, a Answer) error {
	bw := bufio.NewWriter(w)
	x := writer{w: bw}
	x.raw(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	x.raw(`<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.002.001.11"><CstmrPmtStsRpt><GrpHdr>`)
	x.el("MsgId", a.ID)
	x.el("CreDtTm", a.CreatedAt.UTC().Format("2006-01-02T15:04:05Z"))
	x.raw("</GrpHdr><OrgnlGrpInfAndSts>")
	x.el("OrgnlMsgId", a.OriginalMsgID)
	x.el("OrgnlMsgNmId", InitiationMessage)
	if a.Group.Code != "" {
		x.el("GrpSts", a.Group.Code)
		x.reason(a.Group.Reason)
	}
	x.raw("</OrgnlGrpInfAndSts>")
	var order []string
	byBlock := map[string][]Transaction{}
	for _, t := range a.Transactions {
		if _, ok := byBlock[t.PaymentInfoID]; !ok {
			order = append(order, t.PaymentInfoID)
		}
		byBlock[t.PaymentInfoID] = append(byBlock[t.PaymentInfoID], t)
	}
	for _, b := range order {
		x.raw("<OrgnlPmtInfAndSts>")
		x.el("OrgnlPmtInfId", b)
		for _, t := range byBlock[b] {
			x.raw("<TxInfAndSts>")
			x.el("OrgnlEndToEndId", t.EndToEndID)
			x.el("TxSts", t.Code)
			x.reason(t.Reason)
			x.raw("</TxInfAndSts>")
		}
		x.raw("</OrgnlPmtInfAndSts>")
	}
	x.raw("</CstmrPmtStsRpt></Document>\n")
	if x.err == nil {
		x.err = bw.Flush()
	}
	if x.err != nil {
		return fmt.Errorf("pain: write status report %s: %w", a.ID, x.err)
	}
	return nil
}

// reason writes a StsRsnInf whose reason is "CODE" or "CODE: text" (a
// four-letter ISO reason code) or just text.
func (x *writer) reason(r string) {
	if r == "" {
		return
	}
	x.raw("<StsRsnInf>")
	code, info := "", r
	if len(r) >= 4 && (len(r) == 4 || r[4] == ':') {
		code, info = r[:4], r[min(len(r), 5):]
	}
	if code != "" {
		x.raw("<Rsn>")
		x.el("Cd", code)
		x.raw("</Rsn>")
	}
	if info = Text(info, 105); info != "" {
		x.el("AddtlInf", info)
	}
	x.raw("</StsRsnInf>")
}
