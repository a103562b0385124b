package telegram

import (
	"strings"
	"testing"
	"unicode/utf16"
)

func TestMarkdownBecomesTelegramHTML(t *testing.T) {
	for _, tc := range []struct{ name, md, want string }{
		{"plain text is escaped", `a < b && c > d`, `a &lt; b &amp;&amp; c &gt; d`},
		{"bold", `**bold** and __bold__`, `<b>bold</b> and <b>bold</b>`},
		{"italic", `*it* and _it_`, `<i>it</i> and <i>it</i>`},
		{"bold italic", `***both***`, `<b><i>both</i></b>`},
		{"nested", `**bold _and it_**`, `<b>bold <i>and it</i></b>`},
		{"strike", `~~gone~~`, `<s>gone</s>`},
		{"code span escapes and keeps markers", "`a*b*<c>`", `<code>a*b*&lt;c&gt;</code>`},
		{"double backtick span", "``a ` b``", "<code>a ` b</code>"},
		{"link", `see [the **docs**](https://example.com/a?b=1&c=2)`, `see <a href="https://example.com/a?b=1&amp;c=2">the <b>docs</b></a>`},
		{"link with parens and title", `[w](https://en.wikipedia.org/wiki/Go_(lang) "t")`, `<a href="https://en.wikipedia.org/wiki/Go_(lang)">w</a>`},
		{"unsafe link stays text", `[x](javascript:alert(1))`, `[x](javascript:alert(1))`},
		{"quote in href", `[x](https://e.com/"q")`, `<a href="https://e.com/&quot;q&quot;">x</a>`},
		{"snake_case stays", `use my_var_name here`, `use my_var_name here`},
		{"lone stars stay", `2 * 3 * 4`, `2 * 3 * 4`},
		{"unclosed bold stays", `**not closed`, `**not closed`},
		{"escaped marker", `\*not italic\*`, `*not italic*`},
		{"emphasis does not cross lines", "*a\nb*", "*a\nb*"},
		{"heading", `## Plan <v2>`, `<b>Plan &lt;v2&gt;</b>`},
		{"bullets", "- one\n* two\n  + three", "• one\n• two\n  • three"},
		{"numbered list and table pass", "1. a\n| x | y |", "1. a\n| x | y |"},
		{"fenced block", "Run:\n```go\nif a < b && c {\n}\n```\ndone", "Run:\n<pre><code class=\"language-go\">if a &lt; b &amp;&amp; c {\n}</code></pre>\ndone"},
		{"fence without language, markers kept", "```\n**x** _y_\n```", "<pre><code>**x** _y_</code></pre>"},
		{"unclosed fence runs to the end", "```sh\nls", `<pre><code class="language-sh">ls</code></pre>`},
		{"tilde fence and indentation", "  ~~~\n  a\n   b\n  ~~~", "<pre><code>a\n b</code></pre>"},
		{"unicode", `**héllo** 👋 <`, `<b>héllo</b> 👋 &lt;`},
		{"blank lines trimmed", "\n\nhi\n\n", "hi"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := toHTML(tc.md); got != tc.want {
				t.Errorf("toHTML(%q)\n got %q\nwant %q", tc.md, got, tc.want)
			}
		})
	}
}

func visibleLen(h string) int { return len(utf16.Encode([]rune(visibleText(h)))) }

func TestSplitKeepsPartsWithinTheLimit(t *testing.T) {
	para := strings.Repeat("word ", 19) + "end." // 99 characters
	var paras []string
	for range 30 {
		paras = append(paras, para)
	}
	h := toHTML(strings.Join(paras, "\n\n")) // ~3000 characters
	parts := splitHTML(h, 1000)
	if len(parts) != 4 {
		t.Fatalf("got %d parts, want 4", len(parts))
	}
	for i, p := range parts {
		if visibleLen(p) > 1000 {
			t.Errorf("part %d is %d long", i, visibleLen(p))
		}
		if !strings.HasSuffix(p, "end.") || !strings.HasPrefix(p, "word") {
			t.Errorf("part %d is not cut at a paragraph: %q…%q", i, p[:10], p[len(p)-10:])
		}
	}
}

func TestSplitNeverCutsACodeBlockThatFits(t *testing.T) {
	code := "```py\n" + strings.Repeat("print('x')\n", 50) + "```" // 549 characters
	md := strings.Repeat("a", 700) + "\n" + code + "\nafter"
	parts := splitHTML(toHTML(md), 1000)
	if len(parts) != 2 {
		t.Fatalf("got %d parts, want 2: %q", len(parts), parts)
	}
	if parts[0] != strings.Repeat("a", 700) {
		t.Errorf("first part is not the text before the block: %q", parts[0])
	}
	if !strings.HasPrefix(parts[1], `<pre><code class="language-py">print`) || !strings.HasSuffix(parts[1], "</code></pre>\nafter") {
		t.Errorf("second part does not hold the whole block: %q", parts[1])
	}
}

func TestSplitCutsALongCodeBlockIntoClosedBlocks(t *testing.T) {
	var lines []string
	for i := range 300 {
		lines = append(lines, "line "+strings.Repeat("x", i%40)+" < end")
	}
	md := "Here:\n```go\n" + strings.Join(lines, "\n") + "\n```"
	parts := splitHTML(toHTML(md), 1000)
	if len(parts) < 8 {
		t.Fatalf("got %d parts", len(parts))
	}
	var got []string
	for i, p := range parts {
		if visibleLen(p) > 1000 {
			t.Errorf("part %d is %d long", i, visibleLen(p))
		}
		if i > 0 && !strings.HasPrefix(p, `<pre><code class="language-go">`) || !strings.HasSuffix(p, "</code></pre>") {
			t.Errorf("part %d is not a closed block: %q", i, p)
		}
		body := visibleText(p)
		if i == 0 {
			body = strings.TrimPrefix(body, "Here:\n")
		}
		got = append(got, strings.Split(body, "\n")...)
	}
	if strings.Join(got, "\n") != strings.Join(lines, "\n") {
		t.Error("the code's lines did not survive the split whole")
	}
}

func TestSplitCutsAnOverlongLineAtSpacesAndReopensTags(t *testing.T) {
	md := "**" + strings.TrimSpace(strings.Repeat("bold word ", 250)) + "**" // one 2500-character line
	parts := splitHTML(toHTML(md), 1000)
	if len(parts) != 3 {
		t.Fatalf("got %d parts, want 3", len(parts))
	}
	for i, p := range parts {
		if !strings.HasPrefix(p, "<b>") || !strings.HasSuffix(p, "</b>") || strings.Contains(p, "<b> ") || strings.Contains(p, "wor</b>") {
			t.Errorf("part %d: %q…%q", i, p[:12], p[len(p)-12:])
		}
	}
}

func TestSplitCountsWhatTheReaderSees(t *testing.T) {
	// 4096 "<" are 16384 bytes of HTML but one message of 4096 characters.
	h := toHTML(strings.Repeat("<", maxText))
	if parts := splitHTML(h, maxText); len(parts) != 1 {
		t.Errorf("got %d parts, want 1", len(parts))
	}
	// Emoji count twice, as UTF-16 units.
	h = toHTML(strings.Repeat("👋", maxText/2+1))
	if parts := splitHTML(h, maxText); len(parts) != 2 {
		t.Errorf("got %d parts, want 2", len(parts))
	}
}
