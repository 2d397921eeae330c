package camt

// The reader as it was before the scanner (encoding/xml's Decoder.Token),
// kept for the tests that compare the two (reader_compare_test.go) and for
// BenchmarkRead.

import (
	"bufio"
	"encoding/xml"
	"errors"
	"io"
	"strings"

	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/iso"
)

// readStd is Read as it was, on encoding/xml.
func readStd(r io.Reader, h Handler) (Message, error) {
	d := xml.NewDecoder(bufio.NewReaderSize(r, 64<<10))
	d.CharsetReader = charsetReader
	rd := &stdReader{d: d, h: h}
	err := rd.run()
	if err != nil && !errs.Is(err, errs.BadRequest) && errors.As(err, new(*xml.SyntaxError)) {
		line, _ := d.InputPos()
		err = errs.E(errs.BadRequest, "The file is not well-formed XML (line %d): %v.", line, err)
	}
	return rd.msg, err
}

// stdReader is the state of one readStd: where it is in the document and the
// report, entry and transaction being read.
type stdReader struct {
	d    *xml.Decoder
	h    Handler
	msg  Message
	path []string // local names, from the root element down
	text strings.Builder
	ccy  string // the Ccy attribute of the element being read

	repDepth, entryDepth, txDepth int // depth of Stmt/Ntfctn, Ntry, TxDtls (0: outside)
	rep                           Report
	repSent                       bool
	bal                           balance
	index                         int
	entry                         rawEntry
	tx                            *rawTx
}

func (rd *stdReader) run() error {
	rootSeen := false
	for {
		tok, err := rd.d.Token()
		if err == io.EOF {
			if !rootSeen {
				return errs.E(errs.BadRequest, "The file is empty: it holds no XML document; bankrail reads %s.", Supported())
			}
			if rd.msg.Version == 0 {
				return errs.E(errs.BadRequest, "The document has no message element; bankrail reads %s.", Supported())
			}
			return nil
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			rd.path = append(rd.path, t.Name.Local)
			rd.text.Reset()
			rd.ccy = ""
			for _, a := range t.Attr {
				if a.Name.Local == "Ccy" {
					rd.ccy = strings.TrimSpace(a.Value)
				}
			}
			switch len(rd.path) {
			case 1:
				rootSeen = true
				if t.Name.Local != "Document" {
					_, err := messageOf(t.Name.Space, t.Name.Local)
					return err
				}
			case 2:
				m, err := messageOf(t.Name.Space, t.Name.Local)
				if err != nil {
					return err
				}
				m.ID = rd.msg.ID
				rd.msg = m
			}
			if err := rd.start(t.Name.Local); err != nil {
				return err
			}
		case xml.CharData:
			if rd.repDepth > 0 || len(rd.path) == 4 {
				rd.text.Write(t)
			}
		case xml.EndElement:
			if err := rd.end(); err != nil {
				return err
			}
			rd.path = rd.path[:len(rd.path)-1]
			rd.text.Reset()
		}
	}
}

// rel is the path below depth as "A/B/C".
func (rd *stdReader) rel(depth int) string { return strings.Join(rd.path[depth:], "/") }

func (rd *stdReader) start(name string) error {
	depth := len(rd.path)
	switch {
	case depth == 3 && (name == "Stmt" || name == "Ntfctn" || name == "Rpt"):
		rd.repDepth, rd.rep, rd.repSent = depth, Report{}, false
	case rd.repDepth > 0 && rd.entryDepth == 0 && depth == rd.repDepth+1 && name == "Ntry":
		if err := rd.sendReport(); err != nil {
			return err
		}
		rd.index++
		rd.entryDepth, rd.entry = depth, rawEntry{Entry: Entry{Index: rd.index}}
	case rd.repDepth > 0 && rd.entryDepth == 0 && depth == rd.repDepth+1 && name == "Bal":
		rd.bal = balance{}
	case rd.entryDepth > 0 && rd.txDepth == 0 && depth == rd.entryDepth+2 && name == "TxDtls":
		rd.entry.txs = append(rd.entry.txs, rawTx{})
		rd.tx, rd.txDepth = &rd.entry.txs[len(rd.entry.txs)-1], depth
	case rd.txDepth > 0 && depth == rd.txDepth+1 && name == "RtrInf":
		rd.tx.Return = true
	}
	return nil
}

func (rd *stdReader) end() error {
	depth := len(rd.path)
	text := strings.TrimSpace(rd.text.String())
	switch {
	case depth == 4 && rd.path[2] == "GrpHdr" && rd.path[3] == "MsgId":
		rd.msg.ID = text
	case rd.txDepth > 0 && depth == rd.txDepth:
		rd.txDepth, rd.tx = 0, nil
	case rd.txDepth > 0:
		rd.txField(rd.rel(rd.txDepth), text)
	case rd.entryDepth > 0 && depth == rd.entryDepth:
		rd.entryDepth = 0
		e := rd.entry.finish()
		return rd.h.Entry(rd.rep, e)
	case rd.entryDepth > 0:
		rd.entryField(rd.rel(rd.entryDepth), text)
	case rd.repDepth > 0 && depth == rd.repDepth:
		rd.repDepth = 0
		return rd.sendReport()
	case rd.repDepth > 0:
		return rd.reportField(rd.rel(rd.repDepth), text)
	}
	return nil
}

func (rd *stdReader) sendReport() error {
	if rd.repSent {
		return nil
	}
	rd.repSent = true
	return rd.h.Report(rd.rep)
}

func (rd *stdReader) reportField(rel, text string) error {
	switch rel {
	case "Id":
		rd.rep.ID = text
	case "Acct/Id/IBAN":
		rd.rep.IBAN = iso.NormalizeIBAN(text)
	case "Acct/Id/Othr/Id":
		rd.rep.Other = text
	case "Acct/Ccy":
		rd.rep.Currency = strings.ToUpper(text)
	case "Bal/Tp/CdOrPrtry/Cd", "Bal/Tp/CdOrPrtry/Prtry", "Bal/Tp/Cd":
		rd.bal.code = strings.ToUpper(text)
	case "Bal/Amt":
		rd.bal.amount, rd.bal.ccy = text, rd.ccy
	case "Bal/CdtDbtInd":
		rd.bal.ind = strings.ToUpper(text)
	case "Bal/Dt/Dt", "Bal/Dt/DtTm":
		rd.bal.date = text
	case "Bal":
		if rd.bal.code != "CLBD" {
			return nil
		}
		v, err := parseSigned(rd.bal.amount, rd.bal.ccy, rd.bal.ind == "DBIT")
		if err != nil {
			return errs.E(errs.BadRequest, "The closing balance of statement %q (account %s): %v.", rd.rep.ID, rd.rep.Account(), err)
		}
		rd.rep.Closing = &Balance{Amount: v, Currency: rd.bal.ccy, Date: rd.bal.date}
	}
	return nil
}

func (rd *stdReader) entryField(rel, text string) {
	e := &rd.entry
	switch rel {
	case "NtryRef":
		e.Ref = text
	case "Amt":
		e.amount, e.ccy = text, rd.ccy
	case "CdtDbtInd":
		e.ind = strings.ToUpper(text)
	case "RvslInd":
		e.Reversal = text == "true" || text == "1"
	case "Sts", "Sts/Cd", "Sts/Prtry":
		if text != "" {
			e.status = strings.ToUpper(text)
		}
	case "BookgDt/Dt", "BookgDt/DtTm":
		e.BookingDate = text
	case "ValDt/Dt", "ValDt/DtTm":
		e.ValueDate = text
	case "AcctSvcrRef":
		e.AcctSvcrRef = text
	case "AddtlNtryInf":
		e.Info = text
	case "BkTxCd/Domn/Fmly/SubFmlyCd":
		e.subFamily = strings.ToUpper(text)
	}
}

func (rd *stdReader) txField(rel, text string) {
	t := rd.tx
	switch rel {
	case "Refs/EndToEndId":
		if text != "NOTPROVIDED" {
			t.EndToEndID = text
		}
	case "Refs/AcctSvcrRef":
		t.AcctSvcrRef = text
	case "Refs/InstrId":
		t.InstrID = text
	case "Refs/TxId":
		t.TxID = text
	case "Refs/MsgId":
		t.MsgID = text
	case "Amt":
		t.amount, t.ccy = text, rd.ccy
	case "AmtDtls/TxAmt/Amt":
		t.txAmount, t.txCcy = text, rd.ccy
	case "CdtDbtInd":
		t.ind = strings.ToUpper(text)
	case "RmtInf/Ustrd":
		if text != "" {
			t.ustrd = append(t.ustrd, text)
		}
	case "RmtInf/Strd/CdtrRefInf/Ref":
		if text != "" {
			t.strd = append(t.strd, text)
		}
	case "RltdPties/Dbtr/Nm", "RltdPties/Dbtr/Pty/Nm":
		t.dbtr.Name = text
	case "RltdPties/DbtrAcct/Id/IBAN":
		t.dbtr.IBAN = iso.NormalizeIBAN(text)
	case "RltdPties/Cdtr/Nm", "RltdPties/Cdtr/Pty/Nm":
		t.cdtr.Name = text
	case "RltdPties/CdtrAcct/Id/IBAN":
		t.cdtr.IBAN = iso.NormalizeIBAN(text)
	case "RtrInf/Rsn/Cd", "RtrInf/Rsn/Prtry":
		t.Reason = text
	case "BkTxCd/Domn/Fmly/SubFmlyCd":
		t.subFamily = strings.ToUpper(text)
	}
}
