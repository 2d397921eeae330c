package httpapi

import "github.com/bankrail/bankrail/internal/wire"

// opt is wire.Opt: an empty string is an absent field.
var opt = wire.Opt

// val is wire.Val: an absent field is its zero value.
func val[T any](p *T) T { return wire.Val(p) }
