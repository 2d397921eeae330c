package job

import (
	"errors"
	"testing"
	"time"
)

func TestBackoff(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		attempt int
		jitter  float64
		want    time.Duration
	}{
		{0, 0, time.Second}, {1, 0, 2 * time.Second}, {3, 0, 8 * time.Second},
		{1, 0.5, 2*time.Second + 100*time.Millisecond}, {12, 0, time.Hour}, {40, 0.99, time.Hour + 356400*time.Millisecond},
	} {
		if got := Backoff(tt.attempt, tt.jitter); got != tt.want {
			t.Errorf("Backoff(%d, %v) = %s, want %s", tt.attempt, tt.jitter, got, tt.want)
		}
	}
}

func TestHandlerErrors(t *testing.T) {
	t.Parallel()
	base := errors.New("gone")
	if c := Cancel(base); !isCancel(c) || !errors.Is(c, base) {
		t.Fatal("Cancel")
	}
	if isCancel(base) || isCancel(RetryAt(time.Now(), base)) {
		t.Fatal("plain errors are retried")
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var r retryAt
	if err := RetryAt(at, base); !errors.As(err, &r) || !r.at.Equal(at) || !errors.Is(err, base) {
		t.Fatal("RetryAt")
	}
}
