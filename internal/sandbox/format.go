package sandbox

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/bankrail/bankrail/internal/errs"
)

// The snapshot file: JSON lines. The first line is the Header; then, per
// table, a line {"table": name, "columns": [...]} followed by one JSON
// array per row (values in the order of the columns); the last line is
// {"end": true, "tables": N, "rows": M}, so that a cut file is refused.
// A value is a JSON string, number or null, or {"$b": base64} for bytes.
const (
	Format        = "bankrail-sandbox-snapshot"
	FormatVersion = 1
	MaxFileBytes  = 256 << 20 // what Restore reads at most
)

// Header is the first line of a snapshot file.
type Header struct {
	Format        string    `json:"format"`
	FormatVersion int       `json:"formatVersion"`
	SchemaVersion int64     `json:"schemaVersion"` // the database's migration version
	Engine        string    `json:"engine"`        // sqlite or postgres (a file restores on either)
	TakenAt       time.Time `json:"takenAt"`
	// Scope is what the file holds: the whole instance (INSTANCE, also a
	// file that names none) or one customer's tree (TREE, of CustomerID).
	Scope      Scope  `json:"scope,omitempty"`
	CustomerID string `json:"customerId,omitempty"`
}

// tableLine names a table and its columns.
type tableLine struct {
	Table   string   `json:"table"`
	Columns []string `json:"columns"`
}

// endLine closes the file.
type endLine struct {
	End    bool  `json:"end"`
	Tables int   `json:"tables"`
	Rows   int64 `json:"rows"`
}

// Table is the content of one table.
type Table struct {
	Name    string
	Columns []string
	Rows    [][]any // int64, float64, string, []byte, bool or nil
}

// Writer writes a snapshot file.
type Writer struct {
	w            *bufio.Writer
	tables, rows int64
	err          error
}

// NewWriter starts a snapshot file on w with h.
func NewWriter(w io.Writer, h Header) *Writer {
	sw := &Writer{w: bufio.NewWriterSize(w, 64<<10)}
	h.Format, h.FormatVersion = Format, FormatVersion
	sw.line(h)
	return sw
}

func (sw *Writer) line(v any) {
	if sw.err != nil {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		sw.err = err
		return
	}
	if _, err := sw.w.Write(append(b, '\n')); err != nil {
		sw.err = err
	}
}

// Table starts a table.
func (sw *Writer) Table(name string, columns []string) error {
	sw.tables++
	sw.line(tableLine{Table: name, Columns: columns})
	return sw.err
}

// Row writes one row of the current table.
func (sw *Writer) Row(values []any) error {
	sw.rows++
	out := make([]any, len(values))
	for i, v := range values {
		switch v := v.(type) {
		case nil, int64, float64, string, bool:
			out[i] = v
		case []byte:
			out[i] = map[string]string{"$b": base64.StdEncoding.EncodeToString(v)}
		case int32:
			out[i] = int64(v)
		case int:
			out[i] = int64(v)
		default:
			return fmt.Errorf("snapshot: value of type %T cannot be written", v)
		}
	}
	sw.line(out)
	return sw.err
}

// Close writes the end line and flushes.
func (sw *Writer) Close() error {
	sw.line(endLine{End: true, Tables: int(sw.tables), Rows: sw.rows})
	if sw.err != nil {
		return sw.err
	}
	return sw.w.Flush()
}

// Read reads a whole snapshot file, checking its format, its format
// version and that it is complete. The schema version is the caller's to
// compare. A damaged file is BAD_REQUEST naming the line; a file of another
// format version is VALIDATION_FAILURE.
func Read(r io.Reader) (Header, []Table, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), MaxFileBytes)
	n := 0
	bad := func(format string, args ...any) error {
		return errs.E(errs.BadRequest, "The snapshot file is damaged at line %d: %s. Send a file of GET /sandbox/snapshot as it was downloaded.",
			n, fmt.Sprintf(format, args...))
	}
	var h Header
	if !sc.Scan() {
		return h, nil, errs.E(errs.BadRequest, "The snapshot file is empty; send a file of GET /sandbox/snapshot.")
	}
	n = 1
	if err := json.Unmarshal(sc.Bytes(), &h); err != nil || h.Format != Format {
		return h, nil, bad("the first line is not a %s header", Format)
	}
	if h.FormatVersion != FormatVersion {
		var v errs.Validation
		v.Add(errs.NotEqual, "formatVersion", "The snapshot's format version is %d; this bankrail reads format version %d only.", h.FormatVersion, FormatVersion)
		return h, nil, v.Err()
	}
	var tables []Table
	var rows int64
	for sc.Scan() {
		n++
		line := sc.Bytes()
		switch {
		case bytes.HasPrefix(line, []byte("[")):
			if len(tables) == 0 {
				return h, nil, bad("a row before any table")
			}
			t := &tables[len(tables)-1]
			row, err := decodeRow(line)
			if err != nil {
				return h, nil, bad("%v", err)
			}
			if len(row) != len(t.Columns) {
				return h, nil, bad("a row of table %s has %d values for %d columns", t.Name, len(row), len(t.Columns))
			}
			t.Rows = append(t.Rows, row)
			rows++
		case bytes.Contains(line, []byte(`"end"`)):
			var e endLine
			if err := json.Unmarshal(line, &e); err != nil || !e.End {
				return h, nil, bad("not an end line")
			}
			if e.Tables != len(tables) || e.Rows != rows {
				return h, nil, bad("the end line counts %d tables and %d rows, the file holds %d and %d", e.Tables, e.Rows, len(tables), rows)
			}
			if sc.Scan() && len(bytes.TrimSpace(sc.Bytes())) > 0 {
				return h, nil, bad("data after the end line")
			}
			return h, tables, nil
		default:
			var t tableLine
			if err := json.Unmarshal(line, &t); err != nil || t.Table == "" || len(t.Columns) == 0 {
				return h, nil, bad("neither a table, a row nor the end")
			}
			tables = append(tables, Table{Name: t.Table, Columns: t.Columns})
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return h, nil, bad("a line is longer than %d bytes", MaxFileBytes)
		}
		return h, nil, errs.Wrap(errs.BadRequest, err, "The snapshot file could not be read.")
	}
	return h, nil, bad("the file ends before its end line (cut short?)")
}

// decodeRow decodes one row line.
func decodeRow(line []byte) ([]any, error) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var raw []any
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("a row is not a JSON array: %w", err)
	}
	for i, v := range raw {
		switch v := v.(type) {
		case json.Number:
			if n, err := v.Int64(); err == nil && !strings.ContainsAny(v.String(), ".eE") {
				raw[i] = n
			} else if f, err := v.Float64(); err == nil {
				raw[i] = f
			} else {
				return nil, fmt.Errorf("number %s", v)
			}
		case map[string]any:
			s, ok := v["$b"].(string)
			b, err := base64.StdEncoding.DecodeString(s)
			if !ok || err != nil || len(v) != 1 {
				return nil, fmt.Errorf("an object value that is not {\"$b\": base64}")
			}
			raw[i] = b
		case nil, string, bool:
		default:
			return nil, fmt.Errorf("a value of type %T", v)
		}
	}
	return raw, nil
}
