package report

import (
	"strconv"
	"time"
)

// cells formats the cells of a row that are not stored text (times and
// amounts) into one buffer, and makes them strings with one allocation
// per row instead of one per cell. Times are written as TimeFormat
// (RFC 3339 with the fraction's trailing zeros cut) of the UTC instant,
// the date part kept from the row before when the day is the same (rows
// come in time order).
type cells struct {
	buf   []byte
	ends  []int
	day   int64 // Unix day of date
	dayOK bool
	date  [11]byte // "2006-01-02T"
}

// reset starts a row.
func (c *cells) reset() { c.buf, c.ends = c.buf[:0], c.ends[:0] }

// mark ends a cell.
func (c *cells) mark() { c.ends = append(c.ends, len(c.buf)) }

// int appends an integer cell.
func (c *cells) int(n int64) {
	c.buf = strconv.AppendInt(c.buf, n, 10)
	c.mark()
}

// time appends a time cell, as t.UTC().Format(TimeFormat) writes it.
func (c *cells) time(t time.Time) {
	t = t.UTC()
	sec := t.Unix()
	day := sec / 86400
	if sec < 0 && sec%86400 != 0 {
		day--
	}
	if !c.dayOK || day != c.day {
		y, m, d := t.Date()
		if y < 1 || y > 9999 { // not four digits: the standard library's way
			c.buf = t.AppendFormat(c.buf, TimeFormat)
			c.mark()
			return
		}
		c.date = [11]byte{byte('0' + y/1000), byte('0' + y/100%10), byte('0' + y/10%10), byte('0' + y%10), '-',
			byte('0' + int(m)/10), byte('0' + int(m)%10), '-', byte('0' + d/10), byte('0' + d%10), 'T'}
		c.day, c.dayOK = day, true
	}
	s := int(sec - day*86400)
	h, m, ss := s/3600, s/60%60, s%60
	c.buf = append(c.buf, c.date[:]...)
	c.buf = append(c.buf, byte('0'+h/10), byte('0'+h%10), ':', byte('0'+m/10), byte('0'+m%10), ':',
		byte('0'+ss/10), byte('0'+ss%10))
	if ns := t.Nanosecond(); ns != 0 {
		var frac [10]byte
		frac[0] = '.'
		for i := 9; i >= 1; i-- {
			frac[i] = byte('0' + ns%10)
			ns /= 10
		}
		n := 10
		for frac[n-1] == '0' {
			n--
		}
		c.buf = append(c.buf, frac[:n]...)
	}
	c.buf = append(c.buf, 'Z')
	c.mark()
}

// into makes the row's cells strings, in the order they were appended,
// and stores them through dst (as many as cells).
func (c *cells) into(dst ...*string) {
	s := string(c.buf)
	start := 0
	for i, end := range c.ends {
		*dst[i] = s[start:end]
		start = end
	}
}
