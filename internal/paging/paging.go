// Package paging holds what every list shares: a position in the list
// order (the keyset cursor's content) and one page with its exact count.
package paging

import "time"

// Position is a place in a list's order (createdAt, then id; newest first
// unless the list says otherwise): the page that starts after it begins
// with the next item in that order.
type Position struct {
	CreatedAt time.Time
	ID        string
}

// Page is one page of a list.
type Page[T any] struct {
	Items []T
	// Total is the exact number of matches (the contract's total-items;
	// docs/decisions.md, "total-items is exact").
	Total int
	// Next is the position after the page's last item when more follow,
	// nil on the last page.
	Next *Position
}

// Unpack is a page as a caller that shows only the items and the total
// takes it: Unpack(repo.List(...)).
func Unpack[T any](p Page[T], err error) ([]T, int, error) {
	return p.Items, p.Total, err
}

// Items is a page's items alone, as a caller that shows no total takes
// it: Items(repo.List(...)).
func Items[T any](p Page[T], err error) ([]T, error) {
	return p.Items, err
}

// Offset is the number of items before page number page (from 1) of a list
// shown limit at a time: every list filter's Offset. A page below 1 is the
// first.
func Offset(page, limit int) int {
	return max(page-1, 0) * limit
}
