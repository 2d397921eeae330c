package notify_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/notify"
)

// Picks is a function of seed, behaviour and id alone, close to the share
// asked for, and different seeds pick differently.
func TestChaosPicksAreSeeded(t *testing.T) {
	picked, differ := 0, 0
	for i := range 10_000 {
		id := fmt.Sprintf("0190f3c2-5b7e-7a3d-9c1e-%012d", i)
		a := notify.Picks(42, notify.ChaosDuplicate, id, 30)
		if a != notify.Picks(42, notify.ChaosDuplicate, id, 30) {
			t.Fatalf("%s: two answers for one id", id)
		}
		if a {
			picked++
		}
		if a != notify.Picks(43, notify.ChaosDuplicate, id, 30) {
			differ++
		}
	}
	if picked < 2_800 || picked > 3_200 {
		t.Fatalf("30%% picked %d of 10,000", picked)
	}
	if differ < 3_000 {
		t.Fatalf("seeds 42 and 43 differ on %d ids only", differ)
	}
	if notify.Picks(1, notify.ChaosDelayed, "x", 0) || !notify.Picks(1, notify.ChaosDelayed, "x", 100) {
		t.Fatal("0% picks or 100% does not")
	}
}

// PlanChaos applies each behaviour once, on the first attempt only, and
// never to test notifications.
func TestPlanChaos(t *testing.T) {
	now := time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)
	completed := []byte(`{"payment":"p1","reference":"r","amount":1,"status":"COMPLETED","detailedStatus":"COMPLETED"}`)
	claim := func(ch notify.Chaos, n notify.Notification) notify.Claim {
		n.ID, n.Attempts = "n1", 1
		return notify.Claim{Notification: n, Chaos: ch}
	}
	delay := notify.Chaos{DelayPercent: 100, DelaySeconds: 90}
	if p := notify.PlanChaos(claim(delay, notify.Notification{}), now); !p.Defer || !p.Until.Equal(now.Add(90*time.Second)) || p.Mark != notify.ChaosDelayed {
		t.Fatalf("delay %+v", p)
	}
	if p := notify.PlanChaos(claim(delay, notify.Notification{ChaosMarks: "delayed"}), now); p.Defer {
		t.Fatal("delayed twice")
	}
	if p := notify.PlanChaos(claim(delay, notify.Notification{Type: "test"}), now); p.Defer {
		t.Fatal("a test notification delayed")
	}
	retry := claim(delay, notify.Notification{})
	retry.Attempts = 2
	if p := notify.PlanChaos(retry, now); p.Defer {
		t.Fatal("a retry delayed")
	}
	rule1 := notify.Chaos{CompletedAfterReceivedPercent: 100}
	if p := notify.PlanChaos(claim(rule1, notify.Notification{PaymentID: "p1", Body: completed}), now); !p.Defer || !p.Rekey || p.Hold != notify.ChaosCompletedAfterReceived {
		t.Fatalf("rule 1 %+v", p)
	}
	pending := []byte(`{"payment":"p1","status":"PENDING","detailedStatus":"BANK_REDIRECT"}`)
	if p := notify.PlanChaos(claim(rule1, notify.Notification{PaymentID: "p1", Body: pending}), now); p.Defer {
		t.Fatal("rule 1 holds a PENDING")
	}
	reorder := notify.Chaos{ReorderPercent: 100}
	held := claim(reorder, notify.Notification{})
	held.HoldingReorder = true
	if p := notify.PlanChaos(held, now); p.Defer {
		t.Fatal("two held for reordering at once")
	}
	if p := notify.PlanChaos(claim(notify.Chaos{DuplicatePercent: 100}, notify.Notification{}), now); p.Defer || !p.Duplicate {
		t.Fatalf("duplicate %+v", p)
	}
}

func TestChaosValidate(t *testing.T) {
	for _, c := range []notify.Chaos{{DuplicatePercent: 101}, {DelayPercent: 5}, {DelaySeconds: 604801}, {Seed: -1}, {ReorderPercent: -1}} {
		if c.Validate() == nil {
			t.Errorf("%+v accepted", c)
		}
	}
	if err := (notify.Chaos{DelayPercent: 5, DelaySeconds: 1, Seed: 9}).Validate(); err != nil {
		t.Fatal(err)
	}
}
