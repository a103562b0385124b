package metrics

import (
	"math"
	"testing"
)

// TestFamilyText: the exact lines the format wants, escapes included.
func TestFamilyText(t *testing.T) {
	for _, c := range []struct {
		name string
		f    family
		want string
	}{
		{"a gauge", one("x_total", "Plain help.", kindCounter, 3),
			"# HELP x_total Plain help.\n# TYPE x_total counter\nx_total 3\n"},
		{"help escapes backslash and line break, keeps quotes",
			one("x", `a\b "c"`+"\nd", kindGauge, 0.5),
			"# HELP x a\\\\b \"c\"\\nd\n# TYPE x gauge\nx 0.5\n"},
		{"label values escape quotes too",
			family{name: "x", help: "h", kind: kindGauge, samples: []sample{{labels: []label{{"a", `q"b\` + "\n"}, {"b", ""}}, value: 1}}},
			"# HELP x h\n# TYPE x gauge\nx{a=\"q\\\"b\\\\\\n\",b=\"\"} 1\n"},
		{"invalid UTF-8 becomes the replacement character",
			family{name: "x", help: "h", kind: kindGauge, samples: []sample{{labels: []label{{"a", "\xff"}}, value: 1}}},
			"# HELP x h\n# TYPE x gauge\nx{a=\"\uFFFD\"} 1\n"},
		{"special floats", family{name: "x", help: "h", kind: kindGauge, samples: []sample{
			{labels: []label{{"v", "a"}}, value: math.Inf(1)},
			{labels: []label{{"v", "b"}}, value: math.Inf(-1)},
			{labels: []label{{"v", "c"}}, value: math.NaN()},
			{labels: []label{{"v", "d"}}, value: 1e21},
		}}, "# HELP x h\n# TYPE x gauge\nx{v=\"a\"} +Inf\nx{v=\"b\"} -Inf\nx{v=\"c\"} NaN\nx{v=\"d\"} 1e+21\n"},
		{"a histogram", family{name: "h", help: "h", kind: kindHistogram, samples: histogramSamples([]float64{0.5, 1}, []uint64{1, 0, 2}, 4.25)},
			"# HELP h h\n# TYPE h histogram\nh_bucket{le=\"0.5\"} 1\nh_bucket{le=\"1\"} 1\nh_bucket{le=\"+Inf\"} 3\nh_sum 4.25\nh_count 3\n"},
		{"a family with no samples is left out", family{name: "x", help: "h", kind: kindCounter}, ""},
	} {
		if got := string(c.f.appendText(nil)); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

func TestCheckName(t *testing.T) {
	for name, ok := range map[string]bool{
		"jarvisbot_turns_total": true, "_x": true, "X9": true, "le": true,
		"": false, "9x": false, "a-b": false, "a:b": false, "a b": false, "ä": false,
	} {
		if err := checkName(name); (err == nil) != ok {
			t.Errorf("checkName(%q) = %v, want ok %v", name, err, ok)
		}
	}
}
