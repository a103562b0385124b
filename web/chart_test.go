package web

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
)

// renderChart is a chart's SVG as the page has it.
func renderChart(t *testing.T, c barChart) string {
	t.Helper()
	var b bytes.Buffer
	if err := barChartSVG(c).Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestStackedBarsScaleW2 pins the chart's geometry: the highest bar
// reaches the top grid line when it is a round value, others in
// proportion; a bar's segments stand on each other in the series' order;
// every bar stays inside the plot.
func TestStackedBarsScaleW2(t *testing.T) {
	tests := []struct {
		name    string
		labels  []string
		ss      []series
		max     float64
		heights []float64 // each bar's total height, in units
		legend  []string
	}{
		{"one series", []string{"a", "b", "c"}, []series{{Name: "x", Values: []float64{1, 2, 4}}}, 4, []float64{42.5, 85, 170}, []string{"x"}},
		{"stacked", []string{"a", "b"}, []series{{Name: "x", Values: []float64{10, 0}}, {Name: "y", Values: []float64{10, 5}}}, 20, []float64{170, 42.5}, []string{"x", "y"}},
		{"rounded up", []string{"a"}, []series{{Name: "x", Values: []float64{7}}}, 8, []float64{148.8}, []string{"x"}},
		{"a series with nothing is no legend", []string{"a"}, []series{{Name: "x", Values: []float64{3}}, {Name: "never", Values: []float64{0}}}, 3, []float64{170}, []string{"x"}},
		{"nothing at all", []string{"a", "b"}, []series{{Name: "x", Values: []float64{0, 0}}}, 1, []float64{0, 0}, nil},
		{"short values", []string{"a", "b", "c"}, []series{{Name: "x", Values: []float64{1}}}, 1, []float64{170, 0, 0}, []string{"x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := stackedBars("c", "T", "D", tt.labels, tt.ss, tokensShort)
			if c.Max != tt.max {
				t.Errorf("top grid line %v, want %v", c.Max, tt.max)
			}
			if len(c.Bars) != len(tt.labels) {
				t.Fatalf("%d bars for %d labels", len(c.Bars), len(tt.labels))
			}
			for i, b := range c.Bars {
				h, top := 0.0, c.Bottom
				for _, s := range b.Segments {
					if s.Y+s.H < top-0.11 || s.Y+s.H > top+0.11 {
						t.Errorf("bar %d: segment %s does not stand on the one below (%v+%v, want %v)", i, s.Series, s.Y, s.H, top)
					}
					if s.X < c.Left || s.X+s.W > c.Right || s.Y < c.Top-0.11 {
						t.Errorf("bar %d: segment %+v outside the plot", i, s)
					}
					h += s.H
					top = s.Y
				}
				if d := h - tt.heights[i]; d > 0.2 || d < -0.2 {
					t.Errorf("bar %d is %v high, want %v", i, h, tt.heights[i])
				}
			}
			var legend []string
			for _, l := range c.Legend {
				legend = append(legend, l.Label)
			}
			if strings.Join(legend, ",") != strings.Join(tt.legend, ",") {
				t.Errorf("legend %q, want %q", legend, tt.legend)
			}
			if svg := renderChart(t, c); strings.Contains(svg, "NaN") || strings.Contains(svg, "Inf") {
				t.Errorf("the drawing has a number that is none:\n%s", svg)
			}
		})
	}
}

// TestStackedBarsAxesW2: thirty days show six or so labels along the x
// axis, the last (today) always among them; one day shows its own; the y
// axis is labelled from zero up at round values.
func TestStackedBarsAxesW2(t *testing.T) {
	var days []string
	var vals []float64
	for i := range 30 {
		days = append(days, fmt.Sprintf("Day %02d", i))
		vals = append(vals, float64(i*1000))
	}
	c := stackedBars("c", "T", "D", days, []series{{Name: "x", Values: vals}}, tokensShort)
	if n := len(c.XTicks); n < 5 || n > chartMaxTicks+1 || c.XTicks[n-1].Label != "Day 29" {
		t.Errorf("x labels %+v", c.XTicks)
	}
	long := stackedBars("c", "T", "D", []string{"Nov 30", "Dec 1", "Dec 2"}, []series{{Name: "x", Values: []float64{1, 2, 3}}}, tokensShort)
	for _, x := range append(c.XTicks, long.XTicks...) {
		w := float64(len(x.Label)) * chartFontW
		from := map[string]float64{"start": x.Pos, "middle": x.Pos - w/2, "end": x.Pos - w}[x.Anchor]
		if from < 0 || from+w > chartW {
			t.Errorf("the label %q (%s at %v) leaves the drawing", x.Label, x.Anchor, x.Pos)
		}
	}
	var ys []string
	for _, y := range c.YTicks {
		ys = append(ys, y.Label)
	}
	if got := strings.Join(ys, " "); got != "0 10k 20k 30k" {
		t.Errorf("y labels %q", got)
	}
	one := stackedBars("c", "T", "D", []string{"Dec 6"}, []series{{Name: "x", Values: []float64{5}}}, tokensShort)
	if len(one.XTicks) != 1 || one.XTicks[0].Label != "Dec 6" || len(one.Bars[0].Segments) != 1 || one.Bars[0].Segments[0].W <= 0 {
		t.Errorf("one day: %+v", one)
	}
}

// TestStackedBarsLegendWrapsW2: many agents' names wrap onto more legend
// rows, each inside the drawing, which grows to hold them.
func TestStackedBarsLegendWrapsW2(t *testing.T) {
	var ss []series
	for i := range 12 {
		ss = append(ss, series{Name: fmt.Sprintf("agent-with-a-long-name-%d", i), Fill: palette[i%len(palette)], Values: []float64{float64(i + 1)}})
	}
	c := stackedBars("c", "T", "D", []string{"a"}, ss, tokensShort)
	if len(c.Legend) != 12 || len(c.Bars[0].Segments) != 12 {
		t.Fatalf("legend %d, segments %d", len(c.Legend), len(c.Bars[0].Segments))
	}
	rows := map[float64]bool{}
	for _, l := range c.Legend {
		rows[l.Y] = true
		if l.X < c.Left || l.Y > c.H {
			t.Errorf("legend item %+v outside the drawing (%vx%v)", l, c.W, c.H)
		}
	}
	if len(rows) < 3 {
		t.Errorf("12 long names on %d legend rows", len(rows))
	}
	if one := stackedBars("c", "T", "D", []string{"a"}, ss[:1], tokensShort); c.H <= one.H {
		t.Errorf("the drawing did not grow with its legend: %v vs %v", c.H, one.H)
	}
}

// TestBarChartSVGIsAccessibleW2: the drawing scales to its container,
// names itself for a screen reader, and escapes names from outside.
func TestBarChartSVGIsAccessibleW2(t *testing.T) {
	c := stackedBars("chart-x", "Tokens per day", "One bar a day.", []string{"Dec 6"},
		[]series{{Name: `<script>alert(1)</script>`, Fill: "#2457c5", Values: []float64{1200}}}, tokensShort)
	svg := renderChart(t, c)
	for _, want := range []string{`viewBox="0 0 400 `, `width="100%"`, `role="img"`, `aria-labelledby="chart-x-title chart-x-desc"`,
		`<title id="chart-x-title">Tokens per day</title>`, `<desc id="chart-x-desc">One bar a day.</desc>`,
		`data-series="&lt;script&gt;alert(1)&lt;/script&gt;"`, `<title>Dec 6 · &lt;script&gt;alert(1)&lt;/script&gt;: 1.2k</title>`} {
		if !strings.Contains(svg, want) {
			t.Errorf("the drawing lacks %s:\n%s", want, svg)
		}
	}
	if strings.Contains(svg, "<script>") {
		t.Errorf("a name reached the page unescaped:\n%s", svg)
	}
}

func TestChartNumbersW2(t *testing.T) {
	for _, tt := range []struct {
		got, want string
	}{
		{num(niceStep(0)), "1"}, {num(niceStep(0.003)), "0.005"}, {num(niceStep(7)), "10"}, {num(niceStep(2)), "2"}, {num(niceStep(2500)), "5000"},
		{tokensShort(0), "0"}, {tokensShort(950), "950"}, {tokensShort(12000), "12k"}, {tokensShort(1250000), "1.2M"}, {tokensShort(0.5), "0.5"},
		{count(0), "0"}, {count(999), "999"}, {count(1234567), "1,234,567"}, {count(-1234), "-1,234"},
		{dollars(0), "$0"}, {dollars(0.0042), "$0.0042"}, {dollars(0.5), "$0.50"}, {dollars(0.996), "$1.00"}, {dollars(1234.5), "$1,234.50"}, {dollars(0.00001), "$0"},
		{percent(0.9), "90%"}, {percent(0.001), "<1%"}, {percent(0), "0%"},
	} {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}
