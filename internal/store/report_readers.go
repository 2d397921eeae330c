package store

import (
	"context"
	"database/sql/driver"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// batchReader runs a query whose columns are paymentTexts texts then
// paymentInts integers (NOT NULL), calling fn with each row. The strings
// of a row stay valid after fn (they may be kept).
type batchReader interface {
	rows(ctx context.Context, query string, args []any, fn func(text []string, ints []int64) error) error
}

// withReader runs fn with a batch reader on one connection of the read
// pool (or the replica), below database/sql: pgx's raw values on PostgreSQL, the driver's
// rows on SQLite.
func (d reportData) withReader(ctx context.Context, fn func(batchReader) error) error {
	conn, err := d.s.reportPool(ctx).Conn(ctx)
	if err != nil {
		return translate(err, "payments of a report")
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		switch c := dc.(type) {
		case *pipeConn:
			return fn(&pgxReader{conn: c.Conn.Conn()})
		case *stdlib.Conn:
			return fn(&pgxReader{conn: c.Conn()})
		case driver.QueryerContext:
			return fn(driverReader{conn: c})
		}
		return fmt.Errorf("payments of a report: a connection of type %T", dc)
	})
}

// driverReader reads through the driver's rows (SQLite): TEXT columns come
// as strings, INTEGER ones as int64, without database/sql's conversions
// (about 0.2 µs a row of modernc's 2).
type driverReader struct{ conn driver.QueryerContext }

func (r driverReader) rows(ctx context.Context, query string, args []any, fn func([]string, []int64) error) error {
	named := make([]driver.NamedValue, len(args))
	for i, a := range args {
		named[i] = driver.NamedValue{Ordinal: i + 1, Value: a}
	}
	rows, err := r.conn.QueryContext(ctx, query, named)
	if err != nil {
		return translate(err, "payments of a report")
	}
	defer rows.Close()
	if n := len(rows.Columns()); n != paymentTexts+paymentInts {
		return fmt.Errorf("payments of a report: %d columns", n)
	}
	var text [paymentTexts]string
	var ints [paymentInts]int64
	vals := make([]driver.Value, paymentTexts+paymentInts)
	for {
		if err := rows.Next(vals); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return translate(err, "payments of a report")
		}
		for i := range text {
			switch v := vals[i].(type) {
			case string:
				text[i] = v
			case []byte:
				text[i] = string(v)
			case nil:
				text[i] = ""
			default:
				return fmt.Errorf("payments of a report: column %d is %T", i, v)
			}
		}
		for i := range ints {
			v, ok := vals[paymentTexts+i].(int64)
			if !ok {
				return fmt.Errorf("payments of a report: column %d is %T", paymentTexts+i, vals[paymentTexts+i])
			}
			ints[i] = v
		}
		if err := fn(text[:], ints[:]); err != nil {
			return err
		}
	}
}

// pgxReader reads through pgx without database/sql: each row's raw values
// are decoded in place, and its text columns become strings with one
// allocation (one string sliced), not one per column. About a microsecond
// less CPU per row than database/sql's conversions.
type pgxReader struct {
	conn *pgx.Conn
	buf  []byte
}

func (r *pgxReader) rows(ctx context.Context, query string, args []any, fn func([]string, []int64) error) error {
	rows, err := r.conn.Query(ctx, query, args...)
	if err != nil {
		return translate(err, "payments of a report")
	}
	defer rows.Close()
	fields := rows.FieldDescriptions()
	if len(fields) != paymentTexts+paymentInts {
		rows.Close()
		if err := rows.Err(); err != nil { // a failed query has no columns
			return translate(err, "payments of a report")
		}
		return fmt.Errorf("payments of a report: %d columns", len(fields))
	}
	var text [paymentTexts]string
	var ints [paymentInts]int64
	var ends [paymentTexts]int
	done := ctx.Done()
	for rows.Next() {
		select { // rows already received are not handed over once cancelled
		case <-done:
			return ctx.Err()
		default:
		}
		raw := rows.RawValues()
		r.buf = r.buf[:0]
		for i := range paymentTexts {
			r.buf = append(r.buf, raw[i]...)
			ends[i] = len(r.buf)
		}
		all, start := string(r.buf), 0
		for i, end := range ends {
			text[i], start = all[start:end], end
		}
		for i := range paymentInts {
			v, err := decodeInt8(raw[paymentTexts+i], fields[paymentTexts+i].Format)
			if err != nil {
				return fmt.Errorf("payments of a report: column %s: %w", fields[paymentTexts+i].Name, err)
			}
			ints[i] = v
		}
		if err := fn(text[:], ints[:]); err != nil {
			return err
		}
	}
	return translate(rows.Err(), "payments of a report")
}

// decodeInt8 decodes a BIGINT in PostgreSQL's binary or text format.
func decodeInt8(b []byte, format int16) (int64, error) {
	if format == pgx.BinaryFormatCode {
		if len(b) != 8 {
			return 0, fmt.Errorf("%d bytes for a bigint", len(b))
		}
		return int64(binary.BigEndian.Uint64(b)), nil
	}
	return strconv.ParseInt(string(b), 10, 64)
}
