package camt

import (
	"bytes"
	"errors"
	"io"
	"strings"

	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/iso"
)

// Read streams a camt.053 or camt.054 document from r: it identifies the
// message (refusing any other, with an error that says what the file is
// and what is supported), then calls h for each Stmt/Ntfctn and each of
// its entries, in document order, holding one entry at a time. An entry
// that cannot be used is handed to h with its Problem set; malformed XML
// or a handler's error stops the read with that error (errs.BadRequest
// for the file's faults, naming where they are).
func Read(r io.Reader, h Handler) (Message, error) {
	rd := &reader{sc: newScanner(r), h: h}
	err := rd.run()
	var se *syntaxError
	var ee *encodingError
	switch {
	case err == nil || errs.Is(err, errs.BadRequest):
	case errors.As(err, &se):
		err = errs.E(errs.BadRequest, "The file is not well-formed XML (line %d): %s.", se.line, se.msg)
	case errors.As(err, &ee):
		err = errs.E(errs.BadRequest, "The file cannot be read: %s.", ee.msg)
	}
	return rd.msg, err
}

// reader is the state of one Read: where it is in the document and the
// report, entry and transaction being read.
type reader struct {
	sc  *scanner
	h   Handler
	msg Message
	// path is the open elements' local names from the root down, each
	// after a '/': "/Document/BkToCstmrStmt/Stmt/Ntry/Amt"; at[i] is where
	// the (i+1)th element's '/' is.
	path []byte
	at   []int
	ns   []binding // the namespace declarations of the first two levels
	ccy  string    // the Ccy attribute of the element being read

	repDepth, entryDepth, txDepth int // depth of Stmt/Ntfctn, Ntry, TxDtls (0: outside)
	rep                           Report
	repSent                       bool
	bal                           balance
	index                         int
	entry                         rawEntry
	tx                            *rawTx
}

// binding is a namespace declaration (xmlns or xmlns:prefix) of an
// element at depth.
type binding struct {
	depth       int
	prefix, uri string
}

// balance is a Bal being read.
type balance struct{ code, amount, ccy, ind, date string }

// rawEntry is an Ntry being read, its amounts still text.
type rawEntry struct {
	Entry
	amount, ccy, ind, status, subFamily string
	txs                                 []rawTx
}

// rawTx is a TxDtls being read.
type rawTx struct {
	Transaction
	amount, ccy, txAmount, txCcy, ind, subFamily string
	strd, ustrd                                  []string
	dbtr, cdtr                                   Party
}

func (rd *reader) run() error {
	rootSeen := false
	sc := rd.sc
	for {
		tok, err := sc.next()
		if err != nil {
			return err
		}
		switch tok {
		case tokEOF:
			if !rootSeen {
				return errs.E(errs.BadRequest, "The file is empty: it holds no XML document; bankrail reads %s.", Supported())
			}
			if rd.msg.Version == 0 {
				return errs.E(errs.BadRequest, "The document has no message element; bankrail reads %s.", Supported())
			}
			return nil
		case tokStart:
			depth := sc.depth()
			rd.at = append(rd.at, len(rd.path))
			rd.path = append(append(rd.path, '/'), sc.local...)
			sc.text = sc.text[:0]
			rd.ccy = ""
			for _, a := range sc.attrs {
				if string(a.local) == "Ccy" {
					rd.ccy = currency(bytes.TrimSpace(sc.attrBuf[a.from:a.to]))
				}
			}
			switch depth {
			case 1:
				rootSeen = true
				rd.bind(depth)
				if string(sc.local) != "Document" {
					_, err := messageOf(rd.space(), string(sc.local))
					return err
				}
			case 2:
				rd.bind(depth)
				m, err := messageOf(rd.space(), string(sc.local))
				if err != nil {
					return err
				}
				m.ID = rd.msg.ID
				rd.msg = m
			}
			if err := rd.start(sc.local); err != nil {
				return err
			}
		case tokEnd:
			depth := sc.depth() + 1
			if err := rd.end(depth); err != nil {
				return err
			}
			rd.path = rd.path[:rd.at[len(rd.at)-1]]
			rd.at = rd.at[:len(rd.at)-1]
			sc.text = sc.text[:0]
			for len(rd.ns) > 0 && rd.ns[len(rd.ns)-1].depth >= depth {
				rd.ns = rd.ns[:len(rd.ns)-1]
			}
		}
		sc.keep = rd.repDepth > 0 || sc.depth() == 4
	}
}

// bind keeps the namespace declarations of the element just read, at
// depth (1 or 2: only the document's and the message's names are read
// with their namespace).
func (rd *reader) bind(depth int) {
	for _, a := range rd.sc.attrs {
		switch {
		case string(a.prefix) == "xmlns":
			rd.ns = append(rd.ns, binding{depth, string(a.local), string(rd.sc.attrBuf[a.from:a.to])})
		case len(a.prefix) == 0 && string(a.local) == "xmlns":
			rd.ns = append(rd.ns, binding{depth, "", string(rd.sc.attrBuf[a.from:a.to])})
		}
	}
}

// space is the namespace of the element just read, as encoding/xml
// resolves it: a prefix bound to none stays as it is.
func (rd *reader) space() string {
	prefix, local := string(rd.sc.prefix), string(rd.sc.local)
	switch {
	case prefix == "xmlns":
		return prefix
	case prefix == "xml":
		return "http://www.w3.org/XML/1998/namespace"
	case prefix == "" && local == "xmlns":
		return ""
	}
	for i := len(rd.ns) - 1; i >= 0; i-- {
		if rd.ns[i].prefix == prefix {
			return rd.ns[i].uri
		}
	}
	return prefix
}

// rel is the path below depth as "A/B/C".
func (rd *reader) rel(depth int) []byte { return rd.path[rd.at[depth]+1:] }

// name is the local name of the element at depth (from 0).
func (rd *reader) name(depth int) []byte {
	end := len(rd.path)
	if depth+1 < len(rd.at) {
		end = rd.at[depth+1]
	}
	return rd.path[rd.at[depth]+1 : end]
}

func (rd *reader) start(name []byte) error {
	depth := rd.sc.depth()
	switch {
	case depth == 3 && (string(name) == "Stmt" || string(name) == "Ntfctn" || string(name) == "Rpt"):
		rd.repDepth, rd.rep, rd.repSent = depth, Report{}, false
	case rd.repDepth > 0 && rd.entryDepth == 0 && depth == rd.repDepth+1 && string(name) == "Ntry":
		if err := rd.sendReport(); err != nil {
			return err
		}
		rd.index++
		// the transactions' array is reused: finish copies what it keeps
		rd.entryDepth, rd.entry = depth, rawEntry{Entry: Entry{Index: rd.index}, txs: rd.entry.txs[:0]}
	case rd.repDepth > 0 && rd.entryDepth == 0 && depth == rd.repDepth+1 && string(name) == "Bal":
		rd.bal = balance{}
	case rd.entryDepth > 0 && rd.txDepth == 0 && depth == rd.entryDepth+2 && string(name) == "TxDtls":
		if n := len(rd.entry.txs); n < cap(rd.entry.txs) {
			t := &rd.entry.txs[:n+1][n]
			*t = rawTx{strd: t.strd[:0], ustrd: t.ustrd[:0]}
			rd.entry.txs = rd.entry.txs[:n+1]
		} else {
			rd.entry.txs = append(rd.entry.txs, rawTx{})
		}
		rd.tx, rd.txDepth = &rd.entry.txs[len(rd.entry.txs)-1], depth
	case rd.txDepth > 0 && depth == rd.txDepth+1 && string(name) == "RtrInf":
		rd.tx.Return = true
	}
	return nil
}

// end closes the element at depth (the path still holds it).
func (rd *reader) end(depth int) error {
	text := bytes.TrimSpace(rd.sc.text)
	switch {
	case depth == 4 && string(rd.name(2)) == "GrpHdr" && string(rd.name(3)) == "MsgId":
		rd.msg.ID = string(text)
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

// normalIBAN is iso.NormalizeIBAN of b, at the cost of one string when b
// is written as it should be.
func normalIBAN(b []byte) string {
	for _, c := range b {
		if !('A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return iso.NormalizeIBAN(string(b))
		}
	}
	return string(b)
}

// currency is string(b), without a copy for the euro.
func currency(b []byte) string {
	if string(b) == "EUR" {
		return "EUR"
	}
	return string(b)
}

// upper is strings.ToUpper of b, without a copy for the codes read most.
func upper(b []byte) string {
	switch string(b) {
	case "CRDT":
		return "CRDT"
	case "DBIT":
		return "DBIT"
	case "BOOK":
		return "BOOK"
	case "PDNG":
		return "PDNG"
	case "INFO":
		return "INFO"
	case "EUR":
		return "EUR"
	case "CLBD":
		return "CLBD"
	case "":
		return ""
	}
	return strings.ToUpper(string(b))
}

func (rd *reader) sendReport() error {
	if rd.repSent {
		return nil
	}
	rd.repSent = true
	return rd.h.Report(rd.rep)
}
