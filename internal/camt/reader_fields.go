package camt

import "github.com/bankrail/bankrail/internal/errs"

// reportField keeps a field of the report, by its path below the
// Stmt/Ntfctn; at the end of a closing balance (Bal) it parses it.
func (rd *reader) reportField(rel, text []byte) error {
	switch string(rel) {
	case "Id":
		rd.rep.ID = string(text)
	case "Acct/Id/IBAN":
		rd.rep.IBAN = normalIBAN(text)
	case "Acct/Id/Othr/Id":
		rd.rep.Other = string(text)
	case "Acct/Ccy":
		rd.rep.Currency = upper(text)
	case "Bal/Tp/CdOrPrtry/Cd", "Bal/Tp/CdOrPrtry/Prtry", "Bal/Tp/Cd":
		rd.bal.code = upper(text)
	case "Bal/Amt":
		rd.bal.amount, rd.bal.ccy = string(text), rd.ccy
	case "Bal/CdtDbtInd":
		rd.bal.ind = upper(text)
	case "Bal/Dt/Dt", "Bal/Dt/DtTm":
		rd.bal.date = string(text)
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

// entryField keeps a field of the entry, by its path below the Ntry.
func (rd *reader) entryField(rel, text []byte) {
	e := &rd.entry
	switch string(rel) {
	case "NtryRef":
		e.Ref = string(text)
	case "Amt":
		e.amount, e.ccy = string(text), rd.ccy
	case "CdtDbtInd":
		e.ind = upper(text)
	case "RvslInd":
		e.Reversal = string(text) == "true" || string(text) == "1"
	case "Sts", "Sts/Cd", "Sts/Prtry":
		if len(text) > 0 {
			e.status = upper(text)
		}
	case "BookgDt/Dt", "BookgDt/DtTm":
		e.BookingDate = string(text)
	case "ValDt/Dt", "ValDt/DtTm":
		e.ValueDate = string(text)
	case "AcctSvcrRef":
		e.AcctSvcrRef = string(text)
	case "AddtlNtryInf":
		e.Info = string(text)
	case "BkTxCd/Domn/Fmly/SubFmlyCd":
		e.subFamily = upper(text)
	}
}

// txField keeps a field of the transaction, by its path below the TxDtls.
func (rd *reader) txField(rel, text []byte) {
	t := rd.tx
	switch string(rel) {
	case "Refs/EndToEndId":
		if string(text) != "NOTPROVIDED" {
			t.EndToEndID = string(text)
		}
	case "Refs/AcctSvcrRef":
		t.AcctSvcrRef = string(text)
	case "Refs/InstrId":
		t.InstrID = string(text)
	case "Refs/TxId":
		t.TxID = string(text)
	case "Refs/MsgId":
		t.MsgID = string(text)
	case "Amt":
		t.amount, t.ccy = string(text), rd.ccy
	case "AmtDtls/TxAmt/Amt":
		t.txAmount, t.txCcy = string(text), rd.ccy
	case "CdtDbtInd":
		t.ind = upper(text)
	case "RmtInf/Ustrd":
		if len(text) > 0 {
			t.ustrd = append(t.ustrd, string(text))
		}
	case "RmtInf/Strd/CdtrRefInf/Ref":
		if len(text) > 0 {
			t.strd = append(t.strd, string(text))
		}
	case "RltdPties/Dbtr/Nm", "RltdPties/Dbtr/Pty/Nm":
		t.dbtr.Name = string(text)
	case "RltdPties/DbtrAcct/Id/IBAN":
		t.dbtr.IBAN = normalIBAN(text)
	case "RltdPties/Cdtr/Nm", "RltdPties/Cdtr/Pty/Nm":
		t.cdtr.Name = string(text)
	case "RltdPties/CdtrAcct/Id/IBAN":
		t.cdtr.IBAN = normalIBAN(text)
	case "RtrInf/Rsn/Cd", "RtrInf/Rsn/Prtry":
		t.Reason = string(text)
	case "BkTxCd/Domn/Fmly/SubFmlyCd":
		t.subFamily = upper(text)
	}
}
