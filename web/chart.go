package web

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The Overview's charts are SVG drawn here, on the server: no script, no
// library, readable where the page is (a phone's width: the drawing
// scales to its container), and each with a title and a description a
// screen reader reads, and every bar's figure in its own tooltip. Every
// position is computed in Go (stackedBars); chart.templ only places what
// it is given, escaped as any page text.

// series is one layer of a stacked bar chart: a name for the legend, a
// colour, and a value per bar.
type series struct {
	Name   string
	Fill   string
	Values []float64
}

// barChart is a stacked bar chart ready to draw, in its viewBox's units.
type barChart struct {
	ID          string // unique on the page: its title's and description's ids derive from it
	Title, Desc string
	W, H        float64
	// Plot is the area the bars stand in.
	Left, Top, Right, Bottom float64
	Bars                     []bar
	XTicks, YTicks           []tick
	Legend                   []legendItem
	// Max is the value of the top grid line.
	Max float64
}

// bar is one column: its label and its segments, bottom first.
type bar struct {
	Label    string
	Segments []segment
}

// segment is one series' part of a bar.
type segment struct {
	X, Y, W, H float64
	Fill       string
	Series     string
	Value      float64
	Title      string // the tooltip: the bar's label, the series and its value
}

// tick is a label on an axis, with its position along it; Anchor is the
// text's SVG text-anchor, so that a label at an end stays in the drawing.
type tick struct {
	Pos    float64
	Label  string
	Anchor string
}

// legendItem is a swatch and its series' name.
type legendItem struct {
	X, Y  float64
	Fill  string
	Label string
}

// The chart's geometry: a viewBox a phone's width shows at about its own
// scale, so that 13-unit text stays legible there.
const (
	chartW        = 400.0
	chartPlotH    = 170.0
	chartLeft     = 46.0 // room for the y axis's labels
	chartRight    = 8.0
	chartTop      = 10.0
	chartXLabels  = 20.0 // below the plot
	chartLegendH  = 18.0 // one row of the legend
	chartFontW    = 7.2  // an average glyph's width at the chart's font size (13)
	chartSwatch   = 10.0
	chartMaxTicks = 5 // labels along the x axis
)

// stackedBars lays out one bar per label, each stacking the series'
// values in order, scaled so that the highest bar reaches near the top
// grid line; format writes a value on the y axis and in the tooltips.
// A series with no value above zero is left out of the legend.
func stackedBars(id, title, desc string, labels []string, ss []series, format func(float64) string) barChart {
	c := barChart{ID: id, Title: title, Desc: desc, W: chartW, Left: chartLeft, Top: chartTop, Right: chartW - chartRight}
	c.Bottom = c.Top + chartPlotH
	var used []series
	for _, s := range ss {
		for _, v := range s.Values {
			if v > 0 {
				used = append(used, s)
				break
			}
		}
	}
	highest := 0.0
	for i := range labels {
		sum := 0.0
		for _, s := range used {
			sum += valueAt(s.Values, i)
		}
		highest = math.Max(highest, sum)
	}
	step := niceStep(highest / 4)
	c.Max = step * math.Max(1, math.Ceil(highest/step))
	scale := (c.Bottom - c.Top) / c.Max
	for v := 0.0; v <= c.Max+step/2; v += step {
		c.YTicks = append(c.YTicks, tick{Pos: round1(c.Bottom - v*scale), Label: format(v)})
	}

	n := float64(max(len(labels), 1))
	slot := (c.Right - c.Left) / n
	width := slot * 0.72
	every := int(math.Ceil(n / chartMaxTicks))
	for i, l := range labels {
		x := c.Left + float64(i)*slot + (slot-width)/2
		b := bar{Label: l}
		y := c.Bottom
		for _, s := range used {
			v := valueAt(s.Values, i)
			if v <= 0 {
				continue
			}
			h := v * scale
			y -= h
			b.Segments = append(b.Segments, segment{X: round1(x), Y: round1(y), W: round1(width), H: round1(h), Fill: s.Fill,
				Series: s.Name, Value: v, Title: l + " · " + s.Name + ": " + format(v)})
		}
		c.Bars = append(c.Bars, b)
		// The last bar (today) is always labelled; the others at a step
		// that leaves room between labels.
		if (len(labels)-1-i)%every == 0 {
			c.XTicks = append(c.XTicks, xTick(x+width/2, l))
		}
	}

	// The legend wraps below the axis's labels.
	lx, ly := c.Left, c.Bottom+chartXLabels+chartLegendH/2
	for _, s := range used {
		w := chartSwatch + 4 + float64(len(s.Name))*chartFontW + 12
		if lx > c.Left && lx+w > c.Right {
			lx, ly = c.Left, ly+chartLegendH
		}
		c.Legend = append(c.Legend, legendItem{X: round1(lx), Y: round1(ly), Fill: s.Fill, Label: s.Name})
		lx += w
	}
	c.H = ly + chartLegendH/2
	if len(used) == 0 {
		c.H = c.Bottom + chartXLabels
	}
	return c
}

// xTick is a label centred under its bar, unless that would cross an
// end of the drawing: then it ends at, or starts from, its bar's middle.
func xTick(pos float64, label string) tick {
	half := float64(len(label)) * chartFontW / 2
	t := tick{Pos: round1(pos), Label: label, Anchor: "middle"}
	switch {
	case pos+half > chartW:
		t.Anchor = "end"
	case pos-half < 0:
		t.Anchor = "start"
	}
	return t
}

// valueAt is values[i], or 0 past its end.
func valueAt(values []float64, i int) float64 {
	if i < len(values) {
		return values[i]
	}
	return 0
}

// niceStep is the smallest of 1, 2 or 5 times a power of ten at or above
// raw: grid lines at round values. Below the smallest amount a chart
// shows (a token, a hundredth of a cent) it is 1.
func niceStep(raw float64) float64 {
	if raw <= 0 || math.IsNaN(raw) || math.IsInf(raw, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw*(1-1e-9) {
			return m * p
		}
	}
	return 10 * p
}

func round1(f float64) float64 { return math.Round(f*10) / 10 }

// num writes a coordinate for an SVG attribute.
func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// The palette: distinguishable, and readable on white. Agents take them
// in order; outcomes and tiers have their own meaning's colour.
var palette = []string{"#2457c5", "#e08a00", "#17804a", "#b03a8e", "#4aa8c9", "#8a6d3b", "#6b5bd6", "#8c8c8c"}

// tokensShort is a count of tokens for an axis: 950, 12k, 1.2M.
func tokensShort(v float64) string {
	switch {
	case v >= 1e6:
		return trimZero(fmt.Sprintf("%.1f", v/1e6)) + "M"
	case v >= 1e3:
		return trimZero(fmt.Sprintf("%.1f", v/1e3)) + "k"
	}
	return trimZero(fmt.Sprintf("%.1f", v))
}

func trimZero(s string) string { return strings.TrimSuffix(s, ".0") }

// count writes a whole number with thousands separated: 12,345.
func count[N int | int64 | float64](n N) string {
	s := strconv.FormatInt(int64(math.Round(float64(n))), 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// dollars is an amount in US dollars: cents for amounts from a dollar
// up, more digits below, where the cost of a day often is.
func dollars(v float64) string {
	switch {
	case v == 0:
		return "$0"
	case v >= 1:
		cents := int64(math.Round(v * 100))
		return fmt.Sprintf("$%s.%02d", count(cents/100), cents%100)
	case v >= 0.01:
		return fmt.Sprintf("$%.2f", v)
	}
	return trimZeros(fmt.Sprintf("$%.4f", v))
}

// trimZeros drops trailing zeros after a decimal point.
func trimZeros(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	return strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
}

// percent is a share as a whole percentage, "<1%" for a sliver.
func percent(share float64) string {
	p := share * 100
	if p > 0 && p < 1 {
		return "<1%"
	}
	return fmt.Sprintf("%.0f%%", p)
}
