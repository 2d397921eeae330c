package payment

import (
	"slices"
	"strings"
)

// Outcome is what the payer and the bank do to a payment, as the statuses
// to reach in order. A sandbox scenario (X-Service-Testing-Scenario, POST
// /sandbox/payments/{id}/authorise, the mock bank's buttons) is an Outcome;
// the moves in between are filled in from the table (COMPLETED is reached
// through BANK_REDIRECT and AUTHORISED_BY_USER). A status after
// DELAYED_AT_BANK is the bank's later answer: a timed move.
type Outcome []Status

// outcomes are the named sandbox outcomes.
var outcomes = map[string]Outcome{
	"COMPLETED":                       {StatusCompleted},
	"REFUSED_BY_BANK":                 {StatusRefusedByBank},
	"ERROR_AT_BANK":                   {StatusErrorAtBank},
	"CANCELLED_BY_USER":               {StatusCancelledByUser},
	"ABANDONED_BY_USER":               {StatusAbandonedByUser},
	"REFUSED_BY_RISK":                 {StatusRefusedByRisk},
	"DELAYED_AT_BANK>COMPLETED":       {StatusDelayedAtBank, StatusCompleted},
	"DELAYED_AT_BANK>REFUSED_BY_BANK": {StatusDelayedAtBank, StatusRefusedByBank},
	// Connect: completed, and the mock bank never sends the funds (NOT_RECEIVED after the timeframe).
	"COMPLETED>NOT_RECEIVED": {StatusCompleted, StatusNotReceived},
}

// ParseOutcome reads a sandbox outcome name (case-insensitive, spaces
// around ">" ignored).
func ParseOutcome(name string) (Outcome, bool) {
	parts := strings.Split(strings.ToUpper(strings.TrimSpace(name)), ">")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	o, ok := outcomes[strings.Join(parts, ">")]
	return o, ok
}

// ParseBankOutcome reads the outcome a bank's connector reports
// (bank.Answer): a sandbox outcome name (ParseOutcome), or DELAYED_AT_BANK
// alone: the bank has not given its final answer yet and its connector
// brings it later (internal/xs2a's poll job), so the delay has no timed
// move. It is not a sandbox scenario.
func ParseBankOutcome(name string) (Outcome, bool) {
	if strings.EqualFold(strings.TrimSpace(name), string(StatusDelayedAtBank)) {
		return Outcome{StatusDelayedAtBank}, true
	}
	return ParseOutcome(name)
}

// OutcomeNames lists the sandbox outcome names, sorted.
func OutcomeNames() []string {
	names := make([]string, 0, len(outcomes))
	for n := range outcomes {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// String is the outcome's name.
func (o Outcome) String() string {
	parts := make([]string, len(o))
	for i, s := range o {
		parts[i] = string(s)
	}
	return strings.Join(parts, ">")
}

// routes are the moves from NEW_PAYMENT to each status the payer or the
// bank can bring about.
var routes = map[Status][]Status{
	StatusRefusedByRisk:    {StatusRefusedByRisk},
	StatusAbandonedByUser:  {StatusAbandonedByUser},
	StatusBankRedirect:     {StatusBankRedirect},
	StatusAuthorisedByUser: {StatusBankRedirect, StatusAuthorisedByUser},
	StatusCompleted:        {StatusBankRedirect, StatusAuthorisedByUser, StatusCompleted},
	StatusDelayedAtBank:    {StatusBankRedirect, StatusDelayedAtBank},
	StatusRefusedByBank:    {StatusBankRedirect, StatusRefusedByBank},
	StatusErrorAtBank:      {StatusBankRedirect, StatusErrorAtBank},
	StatusCancelledByUser:  {StatusBankRedirect, StatusCancelledByUser},
}

// routeTo returns the moves that bring a payment from status from to
// status to: the direct move when the table has it, else the rest of the
// route to `to` after from. It is an error when from is not on that route.
func routeTo(from, to Status) ([]Status, error) {
	if to == StatusReceived || to == StatusNotReceived || to == StatusSettled {
		// Connect moves follow funds and time, never the payer or the bank.
		return nil, moveError(from, to)
	}
	if CanMove(from, to) {
		return []Status{to}, nil
	}
	route := routes[to]
	if from == StatusNew && len(route) > 0 {
		return route, nil
	}
	if i := slices.Index(route, from); i >= 0 && i < len(route)-1 {
		return route[i+1:], nil
	}
	return nil, moveError(from, to)
}
