package camt

import "encoding/xml"

// The elements of a camt.054.001.08 document, in the schema's order.
type (
	xDocument struct {
		XMLName xml.Name `xml:"Document"`
		Xmlns   string   `xml:"xmlns,attr"`
		Msg     xMsg     `xml:"BkToCstmrDbtCdtNtfctn"`
	}
	xMsg struct {
		GrpHdr xGrpHdr `xml:"GrpHdr"`
		Ntfctn xNtfctn `xml:"Ntfctn"`
	}
	xGrpHdr struct {
		MsgID   string `xml:"MsgId"`
		CreDtTm string `xml:"CreDtTm"`
	}
	xNtfctn struct {
		ID      string `xml:"Id"`
		CreDtTm string `xml:"CreDtTm"`
		Acct    xAcct  `xml:"Acct"`
		Ntry    []xNtry
	}
	xAcct struct {
		IBAN string `xml:"Id>IBAN"`
		Ccy  string `xml:"Ccy"`
	}
	xNtry struct {
		XMLName     xml.Name  `xml:"Ntry"`
		NtryRef     string    `xml:"NtryRef,omitempty"`
		Amt         xAmt      `xml:"Amt"`
		CdtDbtInd   string    `xml:"CdtDbtInd"`
		Sts         xCode     `xml:"Sts"`
		BookgDt     xDate     `xml:"BookgDt"`
		ValDt       xDate     `xml:"ValDt"`
		AcctSvcrRef string    `xml:"AcctSvcrRef,omitempty"`
		BkTxCd      xBkTxCd   `xml:"BkTxCd"`
		NtryDtls    xNtryDtls `xml:"NtryDtls"`
	}
	xAmt struct {
		Ccy   string `xml:"Ccy,attr"`
		Value string `xml:",chardata"`
	}
	xCode struct {
		Cd string `xml:"Cd"`
	}
	xDate struct {
		Dt string `xml:"Dt"`
	}
	xBkTxCd struct {
		Domn xDomn `xml:"Domn"`
	}
	xDomn struct {
		Cd   string `xml:"Cd"`
		Fmly xFmly  `xml:"Fmly"`
	}
	xFmly struct {
		Cd        string `xml:"Cd"`
		SubFmlyCd string `xml:"SubFmlyCd"`
	}
	xNtryDtls struct {
		TxDtls []xTxDtls `xml:"TxDtls"`
	}
	xTxDtls struct {
		Refs      *xRefs      `xml:"Refs,omitempty"`
		Amt       xAmt        `xml:"Amt"`
		CdtDbtInd string      `xml:"CdtDbtInd"`
		RltdPties *xRltdPties `xml:"RltdPties,omitempty"`
		RmtInf    *xRmtInf    `xml:"RmtInf,omitempty"`
		RtrInf    *xRtrInf    `xml:"RtrInf,omitempty"`
	}
	xRefs struct {
		AcctSvcrRef string `xml:"AcctSvcrRef,omitempty"`
		EndToEndID  string `xml:"EndToEndId,omitempty"`
	}
	xRltdPties struct {
		Dbtr     *xParty     `xml:"Dbtr,omitempty"`
		DbtrAcct *xPartyAcct `xml:"DbtrAcct,omitempty"`
		Cdtr     *xParty     `xml:"Cdtr,omitempty"`
		CdtrAcct *xPartyAcct `xml:"CdtrAcct,omitempty"`
	}
	xParty struct {
		Nm string `xml:"Pty>Nm"`
	}
	xPartyAcct struct {
		IBAN string `xml:"Id>IBAN"`
	}
	xRmtInf struct {
		Ustrd string `xml:"Ustrd"`
	}
	xRtrInf struct {
		Rsn *xCode `xml:"Rsn,omitempty"`
	}
)
