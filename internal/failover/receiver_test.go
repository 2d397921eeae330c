//go:build failover

package failover_test

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/bankrail/bankrail/notification"
)

// receiver is the merchant's notification endpoint: it counts every
// notification id it is sent.
type receiver struct {
	*httptest.Server
	mu  sync.Mutex
	ids map[string]int
}

func newReceiver(t *testing.T) *receiver {
	rc := &receiver{ids: map[string]int{}}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc.mu.Lock()
		rc.ids[r.Header.Get(notification.HeaderNotificationID)]++
		rc.mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *receiver) got(id string) bool {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.ids[id] > 0
}
