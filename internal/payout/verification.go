package payout

import (
	"hash/fnv"
	"strings"
	"time"

	"github.com/bankrail/bankrail/internal/namematch"
)

// Result is the answer of an account holder verification.
type Result string

// Verification results.
const (
	Match       Result = "MATCH"
	CloseMatch  Result = "CLOSE_MATCH"
	NoMatch     Result = "NO_MATCH"
	ErrorResult Result = "ERROR" // the bank gave no name
)

// Score bounds of the results: at least MatchScore is MATCH, at least
// CloseMatchScore CLOSE_MATCH, below it NO_MATCH.
const (
	MatchScore      = 0.95
	CloseMatchScore = 0.75
)

// ExpiresAfter is how long a held payout waits for a decision on its
// verification before it is rejected.
const ExpiresAfter = 7 * 24 * time.Hour

// VerificationStatus is the state of a verification.
type VerificationStatus string

// Verification statuses.
const (
	VerificationProcessing VerificationStatus = "PROCESSING"
	VerificationCompleted  VerificationStatus = "COMPLETED"
)

// DecisionType is what a decision says.
type DecisionType string

// Decision types.
const (
	Approved      DecisionType = "APPROVED"
	RejectedByOne DecisionType = "REJECTED"
)

// PerformerType is who decided.
type PerformerType string

// Performer types.
const (
	User      PerformerType = "USER"
	APIClient PerformerType = "API_CLIENT"
)

// Performer is who took a decision (from the token).
type Performer struct {
	ID   string
	Name string
	Type PerformerType
}

// Decision is the merchant's answer to a held payout's verification.
type Decision struct {
	Performer Performer
	Type      DecisionType
	CreatedAt time.Time
}

// Verification is the account holder verification of a payout.
type Verification struct {
	ID            string
	TransactionID string // the payout
	CustomerID    string // the payout's account's customer
	Status        VerificationStatus
	Requested     string // beneficiary.name
	Returned      string // what the bank reports ("" with ERROR)
	Result        Result
	ExecutedAt    time.Time
	ExpiresAt     time.Time // a held payout is rejected then, undecided
	Decision      *Decision
}

// Holds reports whether v's result holds the payout for a decision.
func (v Verification) Holds() bool { return v.Result != Match }

// Scenario is the sandbox's choice of the mock bank's answer.
type Scenario string

// Verification scenarios (X-Service-Testing-Scenario); "" reports the name given.
const (
	ScenarioNone       Scenario = ""
	ScenarioCloseMatch Scenario = "ACCOUNT_HOLDER_VERIFICATION_CLOSE_MATCH"
	ScenarioNoMatch    Scenario = "ACCOUNT_HOLDER_VERIFICATION_NO_MATCH"
	ScenarioError      Scenario = "ACCOUNT_HOLDER_VERIFICATION_ERROR"
	ScenarioRejected   Scenario = "PAYOUT_REJECTED"
)

// strangers are the holders the mock bank reports for NO_MATCH, one per
// account (by a hash of it).
var strangers = []string{"Erika Mustermann", "Kwame Mensah", "Yuki Tanaka", "Olusegun Adeyemi", "Ingrid Bergqvist",
	"Mateus Carvalho", "Priya Raghunathan", "Zbigniew Wozniak"}

// MockHolder is the holder name the mock bank reports for the beneficiary's
// account under scenario sc: the name given (MATCH); the name with its
// first word cut to an initial (CLOSE_MATCH); another person's name, the
// same for the same account (NO_MATCH); none (ERROR).
func MockHolder(b Beneficiary, sc Scenario) string {
	switch sc {
	case ScenarioError:
		return ""
	case ScenarioCloseMatch:
		words := strings.Fields(b.Name)
		if len(words) < 2 {
			r := []rune(b.Name)
			return string(r[:len(r)-len(r)/3]) + "x"
		}
		return string([]rune(words[0])[:1]) + ". " + strings.Join(words[1:], " ")
	case ScenarioNoMatch:
		h := fnv.New32a()
		h.Write([]byte(b.Key()))
		for i := range strangers {
			s := strangers[(int(h.Sum32())+i)%len(strangers)]
			if namematch.Score(b.Name, s, namematch.Options{}) < CloseMatchScore {
				return s
			}
		}
		return strings.Repeat("Z", 12)
	}
	return b.Name
}

// Classify scores requested against returned.
func Classify(requested, returned string) Result {
	if returned == "" {
		return ErrorResult
	}
	switch s := namematch.Score(requested, returned, namematch.Options{}); {
	case s >= MatchScore:
		return Match
	case s >= CloseMatchScore:
		return CloseMatch
	}
	return NoMatch
}
