package auth

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/identity"
)

// userStore answers GetUser from users, each read held until release is
// closed, and counts the reads; the rest of Store is not used.
type userStore struct {
	Store
	mu      sync.Mutex
	users   map[string]identity.User
	reads   int
	release chan struct{}
}

func (s *userStore) GetUser(ctx context.Context, id string) (identity.User, error) {
	s.mu.Lock()
	s.reads++
	u, release := s.users[id], s.release // the row as the read finds it
	s.mu.Unlock()
	<-release
	return u, nil
}

func (s *userStore) set(u identity.User, release chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.users[u.ID], s.release = u, release
}

func (s *userStore) readCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reads
}

// waitingReads is how many users' generations are being read, and how
// many reads were sent.
func (s *Service) waitingReads() (reading int, reads int64) {
	c := &s.generations
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.reading), c.reads
}

// TestGenerationReadOnceForConcurrentRequests: the requests of a user that
// find its cached generation expired at once send one read between them
// and all get its answer; a request that gives up waiting returns at once;
// a change of generation reaches the next period's requests; ForgetUser
// drops a read on its way (it may predate the change), so the next request
// reads afresh.
func TestGenerationReadOnceForConcurrentRequests(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC))
	st := &userStore{users: map[string]identity.User{}}
	s := &Service{store: st, clock: clk}
	ctx := context.Background()
	held := make(chan struct{})
	st.set(identity.User{ID: "u1", TokenGeneration: 3}, held)
	p := Principal{UserID: "u1", Generation: 3}

	const n = 16
	results := make(chan error, n)
	for range n {
		go func() { results <- s.checkGeneration(ctx, p) }()
	}
	for st.readCount() < 1 {
		time.Sleep(time.Millisecond)
	}
	gone, cancel := context.WithCancel(ctx)
	left := make(chan error, 1)
	go func() { left <- s.checkGeneration(gone, p) }() // finds the read on its way
	cancel()
	select {
	case err := <-left:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("a request that gave up: %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a request that gave up still waits for the read")
	}
	close(held)
	for range n {
		if err := <-results; err != nil {
			t.Errorf("a request of the current generation: %v", err)
		}
	}
	if got := st.readCount(); got != 1 {
		t.Errorf("%d reads of the user for %d requests at once; want 1", got, n+1)
	}

	// Within the period the cache answers; after it, a new generation holds.
	open := make(chan struct{})
	close(open)
	st.set(identity.User{ID: "u1", TokenGeneration: 4}, open)
	if err := s.checkGeneration(ctx, p); err != nil || st.readCount() != 1 {
		t.Fatalf("within the period: %v, %d reads", err, st.readCount())
	}
	clk.Advance(GenerationTTL)
	if err := s.checkGeneration(ctx, p); !errors.Is(err, errRevoked) {
		t.Fatalf("a token of the old generation after the period: %v, want revoked", err)
	}

	// A read on its way when ForgetUser comes is not kept.
	clk.Advance(GenerationTTL)
	held = make(chan struct{})
	st.set(identity.User{ID: "u1", TokenGeneration: 4}, held)
	p4 := Principal{UserID: "u1", Generation: 4}
	first := make(chan error, 1)
	go func() { first <- s.checkGeneration(ctx, p4) }()
	for reading, _ := s.waitingReads(); reading == 0; reading, _ = s.waitingReads() {
		time.Sleep(time.Millisecond)
	}
	s.ForgetUser("u1")
	st.set(identity.User{ID: "u1", TokenGeneration: 5}, held) // the change the read may predate
	close(held)
	if err := <-first; err != nil {
		t.Fatalf("the request whose read was on its way: %v", err)
	}
	if err := s.checkGeneration(ctx, p4); !errors.Is(err, errRevoked) {
		t.Fatalf("after ForgetUser, a token of the old generation: %v, want revoked (read afresh)", err)
	}
	if _, reads := s.waitingReads(); reads != 4 {
		t.Errorf("%d reads sent, want 4", reads)
	}
}
