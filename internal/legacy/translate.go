package legacy

import (
	"errors"
	"strings"
	"unicode"

	"github.com/bankrail/bankrail/internal/errs"
)

// Path is the name, in the mapped request, of the Global field path g that
// the Global validator reported:
//  1. the legacy field the value came from (payer.email may come from
//     payer or shopper);
//  2. else the legacy field of g's row in Table, or of the row of the
//     object or array g lies in (checkoutCountries[1]);
//  3. else, for an object or array that Table maps field by field, the
//     legacy object that holds those fields (beneficiary.accountIdentifiers
//     is beneficiary, displayInfo is summaryDetails);
//  4. else g itself.
func (m *Mapping) Path(g string) string {
	if l, ok := m.from[g]; ok {
		return l
	}
	pg, idx := pattern(g)
	var children []string
	for _, row := range Table {
		if row.Response {
			continue
		}
		for i, global := range row.Global {
			global = m.resolve(global)
			if rest, ok := under(pg, global); ok {
				return fill(row.Legacy[i]+rest, idx)
			}
			if _, ok := under(global, pg); ok {
				children = append(children, row.Legacy[i])
			}
		}
	}
	if parent := commonParent(children); parent != "" {
		if !strings.HasSuffix(pg, "[]") {
			parent = strings.TrimSuffix(parent, "[]")
		}
		return fill(parent, idx)
	}
	return g
}

// Failed reports whether the mapping itself failed (fields that disagree,
// an invalid origin).
func (m *Mapping) Failed() bool { return m.fails.Failed() }

// Translate returns err with the field paths of a VALIDATION_FAILURE (and
// the paths their messages start with) in the request's names, after the
// mapping's own failures. Any other error is returned as it is; nil stays
// nil unless the mapping failed.
func (m *Mapping) Translate(err error) error {
	var e *errs.Error
	if err != nil && (!errors.As(err, &e) || e.Code != errs.ValidationFailure) {
		return err
	}
	out := m.fails
	if e != nil {
		for _, f := range e.Fields {
			l := m.Path(f.PropertyPath)
			out.Add(f.Type, l, "%s", rename(f.Message, f.PropertyPath, l))
		}
	}
	return out.Err()
}

// rename replaces the path a message starts with.
func rename(msg, from, to string) string {
	rest, ok := strings.CutPrefix(msg, from)
	if !ok || rest != "" && (unicode.IsLetter(rune(rest[0])) || unicode.IsDigit(rune(rest[0]))) {
		return msg
	}
	return to + rest
}
