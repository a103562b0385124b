package visible

import "testing"

// TestInertShowsAddressesWithoutLinksX5: addresses an app writes are shown
// without anything a chat app would make a link of; controls are escaped
// as Text escapes them; other text is kept.
func TestInertShowsAddressesWithoutLinksX5(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Renew at https://evil.example/login now", "Renew at https[:]//evil[.]example/login now"},
		{"see www.evil.example or mail me@evil.example", "see www[.]evil[.]example or mail me@evil[.]example"},
		{"tg://resolve?domain=x", "tg[:]//resolve?domain=x"},
		{"pi is 3.14, v1.2.3, e.g. this", "pi is 3.14, v1.2.3, e.g. this"},
		{"abc\u202Etxt.exe\x1b[2J", `abc\u202etxt[.]exe\x1b[2J`},
		{"zero\u200Bwidth and NUL\x00", `zero\u200bwidth and NUL\x00`},
		{"/pause now, ask @evil_bot, see /usr/bin", "[/]pause now, ask [@]evil_bot, see [/]usr/bin"},
		{"a/b and me@host and 1/2, <b>x</b>", "a/b and me@host and 1/2, <b>x</b>"},
		{"(/start) \"@x\"", "([/]start) \"[@]x\""},
	} {
		if got := Inert(tc.in); got != tc.want {
			t.Errorf("Inert(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
