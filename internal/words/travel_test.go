package words

import "testing"

// TestRouteAtC5: a way named by two capitalised ends, in English and
// German; times and lower-case words are no ends.
func TestRouteAtC5(t *testing.T) {
	var z Tokenizer
	for _, tt := range []struct {
		msg  string
		want bool
	}{
		{"How far is it from Leipzig to Dresden?", true},
		{"from New York to Boston", true},
		{"Wie komme ich von Köln nach Bonn", true},
		{"Fahrzeit zwischen Berlin und Potsdam", true},
		{"from time to time", false},
		{"from Monday to Friday", false},
		{"Von Montag bis Freitag", false},
		{"from here to there", false},
	} {
		at, end := RouteAt(z.Tokenize(tt.msg))
		if got := at >= 0 && end > at; got != tt.want {
			t.Errorf("RouteAt(%q) = %d, %d; want found %v", tt.msg, at, end, tt.want)
		}
	}
}

// TestNearAtC5: phrases of several words that say "near".
func TestNearAtC5(t *testing.T) {
	var z Tokenizer
	for _, tt := range []struct {
		msg  string
		want string
	}{
		{"a bakery close to my office", "close to"},
		{"ein Café in der Nähe vom Bahnhof", "in der nahe"},
		{"is there anything near by", "near by"},
		{"I closed the door", ""},
		{"in der Küche", ""},
	} {
		toks := z.Tokenize(tt.msg)
		at, end := NearAt(toks)
		got := ""
		for i := at; at >= 0 && i < end; i++ {
			if got != "" {
				got += " "
			}
			got += toks[i].Fold
		}
		if got != tt.want {
			t.Errorf("NearAt(%q) = %q, want %q", tt.msg, got, tt.want)
		}
	}
}

// TestTokenUpperC5: a token remembers a capital first letter, a name's or
// a German noun's mark.
func TestTokenUpperC5(t *testing.T) {
	var z Tokenizer
	toks := z.Tokenize("von Köln nach bonn")
	want := []bool{false, true, false, false}
	for i, tk := range toks {
		if tk.Upper != want[i] {
			t.Errorf("token %q Upper = %v, want %v", tk.Fold, tk.Upper, want[i])
		}
	}
}
