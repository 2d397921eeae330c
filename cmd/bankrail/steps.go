package main

import (
	"encoding/json"
	"fmt"
	"io"
)

// steps prints the steps of a command: a line for a person, or one JSON
// object per step ({"step": name, ...data}).
type steps struct {
	w    io.Writer
	json bool
}

func (s steps) print(name string, data map[string]any, format string, args ...any) {
	if !s.json {
		fmt.Fprintf(s.w, format+"\n", args...)
		return
	}
	b, err := json.Marshal(data) // {"a":...,"b":...}: the step's name goes first
	if err != nil {
		b = []byte(fmt.Sprintf(`{"error":%q}`, err.Error()))
	}
	fmt.Fprintf(s.w, `{"step":%q,%s`+"\n", name, b[1:])
}

// formatMoney formats minor units of a currency with two decimals.
func formatMoney(amount int64, currency string) string {
	return fmt.Sprintf("%d.%02d %s", amount/100, amount%100, currency)
}
