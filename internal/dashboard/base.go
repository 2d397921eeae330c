package dashboard

// base is what every area of the console shares: the dependencies, the
// session guards (session.go) and the page writer (render.go). Each area
// (payments, notifications, payouts, ...) is a small type embedding it,
// with its pages, its actions and its routes.
type base struct {
	Deps
}

// sandbox reports whether the sandbox's pages and buttons are served.
func (h *base) sandbox() bool { return !h.Production && h.Sandbox != nil }

// namer returns the names of customers, each read once per request.
func (h *base) namer(q *req) func(id string) string {
	names := map[string]string{}
	return func(id string) string {
		if n, ok := names[id]; ok {
			return n
		}
		n := id
		if h.Identity == nil {
			return n
		}
		if c, err := h.Identity.Customer(q.ctx(), q.viewer(), id); err == nil {
			n = c.Name
		}
		names[id] = n
		return n
	}
}
