package client

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"strconv"
)

// Page is one page of a list, with the paging headers of the answer.
type Page[T any] struct {
	Items []T
	// Page and Limit are the page number (from 1) and size the server used
	// (its defaults when the parameters had none).
	Page, Limit int64
	// PageCount and TotalItems count the pages and items of the whole list.
	// Both are 0 for a list answered without them (a channel's deposits):
	// such a list ends at its first short page.
	PageCount, TotalItems int64
	// NextCursor is the next-cursor header: the cursor parameter of the
	// page after this one ("" on the last page, and on lists without
	// cursors).
	NextCursor string
	counted    bool
}

// Last reports whether no page follows this one.
func (p *Page[T]) Last() bool {
	if p.NextCursor != "" {
		return false
	}
	if p.counted {
		return p.Page >= p.PageCount
	}
	return len(p.Items) == 0 || (p.Limit > 0 && int64(len(p.Items)) < p.Limit)
}

// list performs k and reads one page of T.
func list[T any](ctx context.Context, c *Client, k call) (*Page[T], error) {
	a, err := c.exchange(ctx, k)
	if err != nil {
		return nil, err
	}
	p := &Page[T]{}
	if err := json.Unmarshal(a.body, &p.Items); err != nil {
		return nil, fmt.Errorf("bankrail: %s: decode the answer: %w", k.op.id, err)
	}
	header := func(name string) (int64, bool) {
		n, err := strconv.ParseInt(a.header.Get(name), 10, 64)
		return n, err == nil
	}
	p.NextCursor = a.header.Get("next-cursor")
	p.Page, _ = header("page")
	p.Limit, _ = header("limit")
	var hasPages, hasTotal bool
	p.PageCount, hasPages = header("page-count")
	p.TotalItems, hasTotal = header("total-items")
	p.counted = hasPages && hasTotal
	if p.Page == 0 || p.Limit == 0 { // a list without paging headers: what was asked
		if q, _, err := encodeParams(k.params); err == nil {
			if p.Page == 0 {
				p.Page, _ = strconv.ParseInt(q.Get("page"), 10, 64)
			}
			if p.Limit == 0 {
				p.Limit, _ = strconv.ParseInt(q.Get("limit"), 10, 64)
			}
		}
		p.Page = max(p.Page, 1)
	}
	return p, nil
}

// all iterates over every item of every page from the one params asks for
// (the first by default). page and cursor point at the params' Page and
// Cursor fields (cursor nil for a list without cursors); fetch reads the
// page params name. After the first page it follows the next-cursor
// header (keyset paging: items created meanwhile do not shift the pages
// after it) until a page has none; a list without cursors goes by page
// numbers to its last page. An error is yielded once, and ends the
// iteration.
func all[P, T any](params *P, page func(*P) **int64, cursor func(*P) **string, fetch func(*P) (*Page[T], error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var p P
		if params != nil {
			p = *params
		}
		for {
			pg, err := fetch(&p)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, item := range pg.Items {
				if !yield(item, nil) {
					return
				}
			}
			switch next := pg.NextCursor; {
			case cursor != nil && next != "":
				*cursor(&p), *page(&p) = &next, nil
			case cursor != nil || pg.Last():
				return
			default:
				n := pg.Page + 1
				*page(&p) = &n
			}
		}
	}
}
