package statement

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/bankrail/bankrail/internal/camt"
)

// Identity is what makes an entry the same entry in every file that
// reports it (a camt.054 advice during the day, the camt.053 statement at
// its end, the same file again), on the account iban:
//   - the bank's AcctSvcrRef, unique per account by the standard's intent
//     and repeated by banks in both messages;
//   - else NtryRef;
//   - else a digest of what the entry says (direction, amount, currency,
//     booking and value dates, and each transaction's amount, direction,
//     references, end-to-end id and counterparty IBAN), with how many
//     entries before it in the same file had the same digest: two identical
//     entries of one file (two equal fees) are two entries, and the same
//     file again yields the same identities.
//
// seen counts the digests met so far in the file (Identity updates it).
func Identity(iban string, e camt.Entry, seen map[string]int) string {
	switch {
	case e.AcctSvcrRef != "":
		return iban + "|AcctSvcrRef|" + e.AcctSvcrRef
	case e.Ref != "":
		return iban + "|NtryRef|" + e.Ref
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%t|%d|%s|%s|%s|%t", e.Credit, e.Amount, e.Currency, e.BookingDate, e.ValueDate, e.Reversal)
	for _, t := range e.Transactions {
		fmt.Fprintf(&b, "|%t|%d|%s|%s|%s|%s|%q", t.Credit, t.Amount, t.EndToEndID, t.AcctSvcrRef, t.TxID, t.Party.IBAN, t.References)
	}
	sum := sha256.Sum256([]byte(b.String()))
	d := hex.EncodeToString(sum[:16])
	seen[d]++
	return iban + "|digest|" + d + "#" + strconv.Itoa(seen[d])
}

// key is the stored form of an identity: its SHA-256, fixed length
// whatever the bank's references.
func key(identity string) string {
	sum := sha256.Sum256([]byte(identity))
	return hex.EncodeToString(sum[:])
}

// externalID is the ledger's external id of transaction n (0-based) of an
// entry: the bank's reference of the transaction when the entry is a
// batch that gives one, else the entry's reference with its position;
// the entry's own reference for a single transaction (POST /payin's
// externalPaymentId stays the account transaction's). At most 64
// characters.
func externalID(identity string, e camt.Entry, n int) string {
	ref := e.AcctSvcrRef
	if ref == "" {
		ref = e.Ref
	}
	if ref == "" {
		ref = "camt-" + key(identity)[:24]
	}
	if len(e.Transactions) > 1 {
		if t := e.Transactions[n].AcctSvcrRef; t != "" && t != e.AcctSvcrRef {
			ref = t
		} else {
			ref += "/" + strconv.Itoa(n+1)
		}
	}
	if len(ref) > 64 {
		ref = "camt-" + key(ref)[:32]
	}
	return ref
}
