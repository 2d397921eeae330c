package browsertest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// watch collects what went wrong in a tab: errors in its console (console.error,
// uncaught exceptions, the browser's error log, such as a resource that did
// not load) and images that did not load.
type watch struct {
	mu       sync.Mutex
	problems []string
	reported int // problems already failed the test
}

// watchKey is the context key of a tab's watch.
type watchKey struct{}

// watchOf is the watch of the tab of ctx (nil for a context Tab did not make).
func watchOf(ctx context.Context) *watch {
	w, _ := ctx.Value(watchKey{}).(*watch)
	return w
}

// add records a problem once.
func (w *watch) add(p string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, q := range w.problems {
		if q == p {
			return
		}
	}
	w.problems = append(w.problems, p)
}

// listen records the console errors of the tab. The listener runs on the
// tab's reader before the reply to any later command arrives, so once a
// command returned, every error logged before it is recorded.
func (w *watch) listen(ctx context.Context) error {
	return chromedp.Listen(ctx, func(ev any) {
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError {
				var args []string
				for _, a := range ev.Args {
					if a.Description != "" {
						args = append(args, a.Description)
					} else {
						args = append(args, string(a.Value))
					}
				}
				w.add("console.error: " + strings.Join(args, " "))
			}
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			w.add(fmt.Sprintf("uncaught exception at %s:%d: %s", d.URL, d.LineNumber+1, msg))
		case *log.EventEntryAdded:
			if e := ev.Entry; e.Level == log.EntryLevelError {
				w.add(fmt.Sprintf("browser log (%s) %s: %s", e.Source, e.URL, e.Text))
			}
		}
	})
}

// fail fails the test with the problems recorded since the last report.
func (w *watch) fail(t *testing.T, fatal bool) {
	t.Helper()
	w.mu.Lock()
	news := w.problems[w.reported:]
	w.reported = len(w.problems)
	w.mu.Unlock()
	if len(news) == 0 {
		return
	}
	msg := "the page went wrong:\n\t" + strings.Join(news, "\n\t")
	if fatal {
		t.Fatal(msg)
	}
	t.Error(msg)
}

// brokenImages is evaluated in a frame: null while the document loads, else
// the images that did not load (an image that loaded has a naturalWidth).
const brokenImages = `document.readyState !== 'complete' ? null :
	Array.from(document.images).filter(i => !i.complete || i.naturalWidth === 0).map(i => i.getAttribute('src') || '(no src)')`

// checkImages waits until every frame of the tab has loaded and records the
// images that did not load. It evaluates in an isolated world of each frame,
// so it works with JavaScript off and in frames of another origin.
func (w *watch) checkImages(ctx context.Context) error {
	tree, err := chromedp.Run(ctx, chromedp.Action[*page.FrameTree](func(ctx context.Context, t *chromedp.Target) (*page.FrameTree, error) {
		res, err := cdp.Call(ctx, t, page.GetFrameTree, cdp.Empty{})
		return res.FrameTree, err
	}))
	if err != nil {
		return fmt.Errorf("frame tree: %w", err)
	}
	frames := []*page.FrameTree{tree}
	for len(frames) > 0 {
		f := frames[0]
		frames = append(frames[1:], f.ChildFrames...)
		broken, err := frameImages(ctx, f.Frame.ID)
		if err != nil {
			return fmt.Errorf("images of %s: %w", f.Frame.URL, err)
		}
		for _, src := range broken {
			w.add(fmt.Sprintf("image did not load on %s: %.120s", f.Frame.URL, src))
		}
	}
	return nil
}

// frameImages waits until frame has loaded and returns the images that did
// not load.
func frameImages(ctx context.Context, frame cdp.FrameID) ([]string, error) {
	for {
		broken, err := chromedp.Run(ctx, chromedp.Action[*[]string](func(ctx context.Context, t *chromedp.Target) (*[]string, error) {
			world, err := cdp.Call(ctx, t, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: frame, WorldName: "browsertest"})
			if err != nil {
				return nil, err
			}
			return chromedp.Evaluate[*[]string](brokenImages, func(p *runtime.EvaluateParams) { p.ContextID = world.ExecutionContextID })(ctx, t)
		}))
		if err != nil {
			return nil, err
		}
		if broken != nil {
			return *broken, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("frame still loading: %w", ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}
