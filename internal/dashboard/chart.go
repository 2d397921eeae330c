package dashboard

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/payment"
)

// Charts are drawn on the server as SVG (no script): a fixed coordinate
// system (viewBox) that the page scales to its width. Every chart comes
// with its numbers as a table, for screen readers and for whoever would
// rather read.

// chartDays is how many days the payments chart shows, today included.
const chartDays = 14

// Geometry of the charts' coordinate system.
const (
	chartW, chartH         = 720, 260
	plotL, plotR           = 48, 8  // margins left (the y axis' numbers) and right
	plotT, plotB           = 12, 36 // margins top and bottom (the days)
	plotW                  = chartW - plotL - plotR
	plotH                  = chartH - plotT - plotB
	barShare       float64 = 0.7 // of a day's width
)

// seriesView is one series of a chart: its label and colour class.
type seriesView struct{ Label, Class string }

// segView is one series' part of a bar.
type segView struct {
	Y, H  float64
	Class string
	Title string
}

// barView is one day's bar.
type barView struct {
	X, W float64
	Segs []segView
}

// tickView is a line of the grid with its number, or a day under the axis.
type tickView struct {
	X, Y  float64
	Label string
}

// chartRow is one row of a chart's table.
type chartRow struct {
	Label  string
	Counts []int
	Total  int
}

// chartView is a bar chart of counts per day, stacked by series.
type chartView struct {
	W, H         int
	PlotL, PlotR float64
	PlotT, PlotB float64 // the plot's top and bottom (the x axis)
	Bars         []barView
	Grid         []tickView
	Days         []tickView
	Series       []seriesView
	Rows         []chartRow
	Total        int
	From, To     string
	Description  string
}

// flowSeries groups the payment statuses as paymentInitiationFlow does:
// the chart's series, in stacking order.
var flowSeries = []struct {
	flow  payment.FlowStatus
	label string
	class string
}{
	{payment.FlowFinished, "Finished", "s-ok"},
	{payment.FlowProcessing, "In progress", "s-pending"},
	{payment.FlowException, "Failed", "s-bad"},
	{payment.FlowAborted, "Cancelled or abandoned", "s-neutral"},
}

// paymentsChart counts the viewer's payments of the last chartDays days
// (UTC days, on the clock of the viewer's tenant: in the sandbox, an
// advanced clock moves the window) by day and flow status.
func (h *paymentPages) paymentsChart(q *req) (chartView, error) {
	now, err := clock.For(q.ctx(), h.Clock, q.viewer())
	if err != nil {
		return chartView{}, err
	}
	today := now.UTC().Truncate(24 * time.Hour)
	from := today.AddDate(0, 0, -(chartDays - 1))
	counts := make([][]int, chartDays)
	for i := range counts {
		counts[i] = make([]int, len(flowSeries))
	}
	err = h.Payments.PerDay(q.ctx(), q.viewer(), from, today.Add(24*time.Hour), func(day time.Time, status string, n int) {
		i := int(day.Sub(from) / (24 * time.Hour))
		if i < 0 || i >= chartDays {
			return
		}
		flow := payment.Status(status).Flow()
		for k, s := range flowSeries {
			if s.flow == flow {
				counts[i][k] += n
			}
		}
	})
	if err != nil {
		return chartView{}, err
	}
	days := make([]time.Time, chartDays)
	for i := range days {
		days[i] = from.AddDate(0, 0, i)
	}
	return barChart(days, counts), nil
}

// barChart lays out stacked bars of counts (one row per day, one column
// per series of flowSeries).
func barChart(days []time.Time, counts [][]int) chartView {
	c := chartView{W: chartW, H: chartH, PlotL: plotL, PlotR: chartW - plotR, PlotT: plotT, PlotB: plotT + plotH,
		From: days[0].Format("2 January 2006"), To: days[len(days)-1].Format("2 January 2006")}
	for _, s := range flowSeries {
		c.Series = append(c.Series, seriesView{Label: s.label, Class: s.class})
	}
	top := 0
	for i, row := range counts {
		r := chartRow{Label: days[i].Format("Mon 2 Jan"), Counts: row}
		for _, n := range row {
			r.Total += n
		}
		c.Rows = append(c.Rows, r)
		c.Total += r.Total
		top = max(top, r.Total)
	}
	scale := niceCeil(top)
	slot := float64(plotW) / float64(len(days))
	for i, row := range counts {
		b := barView{X: plotL + float64(i)*slot + slot*(1-barShare)/2, W: slot * barShare}
		y := float64(plotT + plotH)
		for k, n := range row {
			if n == 0 {
				continue
			}
			hgt := float64(n) / float64(scale) * plotH
			y -= hgt
			b.Segs = append(b.Segs, segView{Y: y, H: hgt, Class: flowSeries[k].class,
				Title: fmt.Sprintf("%s: %d %s", c.Rows[i].Label, n, strings.ToLower(flowSeries[k].label))})
		}
		c.Bars = append(c.Bars, b)
		if i%2 == len(days)%2 || len(days) <= 7 { // every other day, ending today
			c.Days = append(c.Days, tickView{X: plotL + float64(i)*slot + slot/2, Y: plotT + plotH + 20, Label: days[i].Format("2 Jan")})
		}
	}
	for _, v := range []int{0, scale / 2, scale} {
		c.Grid = append(c.Grid, tickView{X: plotL - 8, Y: plotT + plotH - float64(v)/float64(scale)*plotH, Label: strconv.Itoa(v)})
	}
	c.Description = fmt.Sprintf("%s from %s to %s; the busiest day had %d.", plural(int64(c.Total), "payment"), c.From, c.To, top)
	return c
}

// niceCeil is the smallest of 2, 4, 10, 20, 40, 100, ... (an even number,
// so that half of it is whole) at least n.
func niceCeil(n int) int {
	for base := 1; ; base *= 10 {
		for _, m := range []int{2, 4, 10} {
			if m*base >= n {
				return m * base
			}
		}
	}
}

// lineView is a line chart of one series over time (the balance).
type lineView struct {
	W, H         int
	PlotL, PlotR float64
	PlotT, PlotB float64
	Points       string // the polyline's points
	Dots         []tickView
	Grid         []tickView
	Days         []tickView
	Rows         []lineRow
	Description  string
}

// lineRow is one point of a line chart's table.
type lineRow struct {
	At     time.Time
	Amount string
}

// balanceChart draws the available balance of account after each of its
// entries (oldest first), from its first entry to now; nil without entries.
func balanceChart(account ledger.Account, entries []ledger.Entry, now time.Time) *lineView {
	if len(entries) == 0 {
		return nil
	}
	type point struct {
		at  time.Time
		bal int64
	}
	var pts []point
	var bal int64
	for _, e := range entries {
		bal += e.Delta(account.ID).Available
		if n := len(pts); n > 0 && pts[n-1].at.Equal(e.CreatedAt) {
			pts[n-1].bal = bal
			continue
		}
		pts = append(pts, point{e.CreatedAt, bal})
	}
	start, end := pts[0].at, now
	if !end.After(start) {
		end = start.Add(time.Hour)
	}
	var top int64
	for _, p := range pts {
		top = max(top, p.bal)
	}
	scale := int64(niceCeil(int(min(top, 1<<40))))
	x := func(t time.Time) float64 { return plotL + float64(t.Sub(start))/float64(end.Sub(start))*plotW }
	y := func(v int64) float64 { return plotT + plotH - float64(v)/float64(scale)*plotH }
	c := &lineView{W: chartW, H: chartH, PlotL: plotL, PlotR: chartW - plotR, PlotT: plotT, PlotB: plotT + plotH}
	var b strings.Builder
	for i, p := range pts { // a step line: the balance holds until the next entry
		if i > 0 {
			fmt.Fprintf(&b, "%.1f,%.1f ", x(p.at), y(pts[i-1].bal))
		}
		fmt.Fprintf(&b, "%.1f,%.1f ", x(p.at), y(p.bal))
		c.Dots = append(c.Dots, tickView{X: x(p.at), Y: y(p.bal), Label: when(p.at) + ": " + formatAmount(p.bal, account.Currency)})
		c.Rows = append(c.Rows, lineRow{At: p.at, Amount: formatAmount(p.bal, account.Currency)})
	}
	fmt.Fprintf(&b, "%.1f,%.1f", x(end), y(pts[len(pts)-1].bal))
	c.Points = b.String()
	for _, v := range []int64{0, scale / 2, scale} {
		c.Grid = append(c.Grid, tickView{X: plotL - 8, Y: y(v), Label: axisMoney(v, account.Currency)})
	}
	c.Days = []tickView{{X: plotL, Y: plotT + plotH + 20, Label: start.Format("2 Jan 2006")},
		{X: chartW - plotR, Y: plotT + plotH + 20, Label: end.Format("2 Jan 2006")}}
	c.Description = fmt.Sprintf("Available balance from %s to %s: now %s, at most %s.", start.Format("2 January 2006"),
		end.Format("2 January 2006"), formatAmount(pts[len(pts)-1].bal, account.Currency), formatAmount(top, account.Currency))
	return c
}

// axisMoney is a short axis label of minor units: whole units.
func axisMoney(minor int64, currency string) string {
	s := formatAmount(minor, currency)
	if i := strings.IndexByte(s, '.'); i > 0 {
		return s[:i]
	}
	return strings.TrimSuffix(s, " "+currency)
}
