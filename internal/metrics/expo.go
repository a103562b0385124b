package metrics

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// contentType is Prometheus' text exposition format, the one format every
// Prometheus server (and every other scraper) reads.
const contentType = "text/plain; version=0.0.4; charset=utf-8"

// kind is a metric family's TYPE.
type kind string

const (
	kindCounter   kind = "counter"
	kindGauge     kind = "gauge"
	kindHistogram kind = "histogram"
	kindSummary   kind = "summary"
)

type label struct{ name, value string }

// sample is one line of a family: the family's name plus suffix (_bucket,
// _sum, _count or nothing), its labels and its value.
type sample struct {
	suffix string
	labels []label
	value  float64
}

// family is one metric as a scrape shows it: a HELP and a TYPE line, then
// its samples.
type family struct {
	name, help string
	kind       kind
	samples    []sample
}

// one is a family of a single unlabelled sample.
func one(name, help string, k kind, v float64) family {
	return family{name: name, help: help, kind: k, samples: []sample{{value: v}}}
}

// histogramSamples turns per-bucket counts into the format's cumulative
// buckets: counts[i] is how many observations fell at or below bounds[i]
// and above the bound before it; the last count is those above every
// bound, so the +Inf bucket is the total.
func histogramSamples(bounds []float64, counts []uint64, sum float64) []sample {
	s := make([]sample, 0, len(counts)+2)
	var cum uint64
	for i, n := range counts {
		cum += n
		le := math.Inf(1)
		if i < len(bounds) {
			le = bounds[i]
		}
		s = append(s, sample{suffix: "_bucket", labels: []label{{"le", formatFloat(le)}}, value: float64(cum)})
	}
	return append(s, sample{suffix: "_sum", value: sum}, sample{suffix: "_count", value: float64(cum)})
}

// appendText appends f in the text format, version 0.0.4. A family with no
// samples is left out, as Prometheus' own client leaves out a labelled
// counter nothing has counted yet.
func (f family) appendText(b []byte) []byte {
	if len(f.samples) == 0 {
		return b
	}
	b = append(b, "# HELP "...)
	b = append(b, f.name...)
	b = append(b, ' ')
	b = appendEscaped(b, f.help, false)
	b = append(b, "\n# TYPE "...)
	b = append(b, f.name...)
	b = append(b, ' ')
	b = append(b, f.kind...)
	b = append(b, '\n')
	for _, s := range f.samples {
		b = append(b, f.name...)
		b = append(b, s.suffix...)
		if len(s.labels) > 0 {
			b = append(b, '{')
			for i, l := range s.labels {
				if i > 0 {
					b = append(b, ',')
				}
				b = append(b, l.name...)
				b = append(b, `="`...)
				b = appendEscaped(b, l.value, true)
				b = append(b, '"')
			}
			b = append(b, '}')
		}
		b = append(b, ' ')
		b = append(b, formatFloat(s.value)...)
		b = append(b, '\n')
	}
	return b
}

// appendEscaped escapes what the format requires: a backslash and a line
// break in HELP text, and a double quote as well in a label value. Bytes
// that are not UTF-8 become U+FFFD, since the format is UTF-8.
func appendEscaped(b []byte, s string, quote bool) []byte {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			b = append(b, `\\`...)
		case c == '\n':
			b = append(b, `\n`...)
		case c == '"' && quote:
			b = append(b, `\"`...)
		default:
			b = append(b, c)
		}
	}
	return b
}

// formatFloat writes a value as the format (and Go's ParseFloat) reads it.
func formatFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// checkName says why name cannot be a metric or label name: ASCII
// letters, digits (not first) and underscores. The format also allows
// colons in metric names, but those are meant for recording rules.
func checkName(name string) error {
	if name == "" {
		return fmt.Errorf("metrics: an empty name")
	}
	for i, c := range name {
		if c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9' {
			continue
		}
		return fmt.Errorf("metrics: %q is not a valid metric or label name (letters, digits and underscores, not starting with a digit)", name)
	}
	return nil
}

// sortFamilies orders families by name so scrapes read alike.
func sortFamilies(fs []family) {
	slices.SortFunc(fs, func(a, b family) int { return strings.Compare(a.name, b.name) })
}
