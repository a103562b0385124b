package telegram

import (
	"fmt"
	"slices"
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
		// Cases the CommonMark parser (goldmark) brings.
		{"emphasis nested three deep", `**a *b **c** b* a**`, `<b>a <i>b <b>c</b> b</i> a</b>`},
		{"bold italic around nested emphasis and code", "***bold _it_ and `c`*** x", `<b><i>bold <i>it</i> and <code>c</code></i></b> x`},
		{"underscore bold italic", `_**x**_`, `<b><i>x</i></b>`},
		{"emphasis across lines stays within a paragraph too", "line *x\ny* z", "line *x\ny* z"},
		{"single tilde is text", `~~a~~ ~b~ ~~~c~~~`, `<s>a</s> ~b~ ~~~c~~~`},
		{"ordered and nested lists", "1. one\n2. two\n   - sub <a>\n     1. deep\n3. three", "1. one\n2. two\n  • sub &lt;a&gt;\n    1. deep\n3. three"},
		{"list numbering and delimiter", "3) x\n4) y", "3) x\n4) y"},
		{"loose list keeps its blank line", "- a\n\n- b", "• a\n\n• b"},
		{"headings of every kind", "# Title\n\nText\n\nSetext\n======\n\n###### six ######", "<b>Title</b>\n\nText\n\n<b>Setext</b>\n\n<b>six</b>"},
		{"link text and address with special characters", `[a & b](https://x.com/?q=a&b="c"&lt;)`, `<a href="https://x.com/?q=a&amp;b=&quot;c&quot;&lt;">a &amp; b</a>`},
		{"bracketed address with a space", `[t](<https://x.com/a b>)`, `<a href="https://x.com/a%20b">t</a>`},
		{"autolinks", `<https://e.com/?a=1&b=2> and <me@x.com>`, `<a href="https://e.com/?a=1&amp;b=2">https://e.com/?a=1&amp;b=2</a> and <a href="mailto:me@x.com">me@x.com</a>`},
		{"empty link text shows the address", `[](https://empty.com)`, `<a href="https://empty.com">https://empty.com</a>`},
		{"reference link", "[ref]\n\n[ref]: https://r.com/x", `<a href="https://r.com/x">ref</a>`},
		{"image becomes a link", `![pic <1>](https://img.com/p.png)`, `<a href="https://img.com/p.png">pic &lt;1&gt;</a>`},
		{"code block with < & > and entities", "```html\n<a href=\"x\">&amp;</a>\n```", `<pre><code class="language-html">&lt;a href="x"&gt;&amp;amp;&lt;/a&gt;</code></pre>`},
		{"indented code block", "    indented <code> & stuff", `<pre><code>indented &lt;code&gt; &amp; stuff</code></pre>`},
		{"blockquote", "> quote **b**\n> more\n\ntext", "<blockquote>quote <b>b</b>\nmore</blockquote>\n\ntext"},
		{"hard line breaks", "a  \nb\\\nc", "a\nb\nc"},
		{"raw HTML is text", "<div>\n*x*\n</div>\n\nx <span>y</span>", "&lt;div&gt;\n*x*\n&lt;/div&gt;\n\nx &lt;span&gt;y&lt;/span&gt;"},
		{"character references", `&copy; &#65; &bogus; AT&T`, `© A &amp;bogus; AT&amp;T`},
		{"rules", "a\n\n---\n\n***", "a\n\n———\n\n———"},
		{"tables stay text", "| a | b |\n|---|---|\n| 1 | 2 |", "| a | b |\n|---|---|\n| 1 | 2 |"},
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

// TestSplitNeverCutsATagOrEntity: whatever the limit, every part of a
// converted answer is HTML Telegram accepts on its own: each tag whole
// and closed, each entity whole, every link still carrying its address.
func TestSplitNeverCutsATagOrEntity(t *testing.T) {
	md := "# Report <draft>\n\n" +
		"**Bold text that runs on & on across many words, with a [link & more](https://example.com/?a=1&b=\"2\") in it** and _more_.\n\n" +
		"> A quote with `code <x> & y` and ~~old~~ text\n> that runs on.\n\n" +
		"1. first <item>\n2. second & last\n   - nested **bold <b>**\n\n" +
		"```sh\necho \"a < b && c > d\" | grep -v '&amp;'\n```\n" +
		strings.Repeat("&<>\"", 30)
	h := toHTML(md)
	for limit := 8; limit <= 200; limit++ {
		parts := splitHTML(h, limit)
		var seen strings.Builder
		for i, p := range parts {
			if err := wellFormed(p); err != nil {
				t.Fatalf("limit %d, part %d %q: %v", limit, i, p, err)
			}
			if n := visibleLen(p); n > limit {
				t.Errorf("limit %d, part %d is %d long", limit, i, n)
			}
			seen.WriteString(visibleText(p))
		}
		if got, want := strings.Join(strings.Fields(seen.String()), ""), strings.Join(strings.Fields(visibleText(h)), ""); got != want {
			t.Fatalf("limit %d: the parts do not add up to the text:\n got %q\nwant %q", limit, got, want)
		}
	}
}

// wellFormed checks h as Telegram's parse_mode HTML does, for the tags
// toHTML writes.
func wellFormed(h string) error {
	tags := map[string]bool{"b": true, "i": true, "s": true, "u": true, "code": true, "pre": true, "a": true, "blockquote": true, "tg-spoiler": true}
	var open []string
	for i := 0; i < len(h); i++ {
		switch h[i] {
		case '<':
			j := strings.IndexByte(h[i:], '>')
			if j < 0 {
				return fmt.Errorf("a tag cut at byte %d", i)
			}
			inner := h[i+1 : i+j]
			if strings.ContainsAny(inner, "<") {
				return fmt.Errorf("a tag cut at byte %d: %q", i, inner)
			}
			if name, ok := strings.CutPrefix(inner, "/"); ok {
				if len(open) == 0 || open[len(open)-1] != name {
					return fmt.Errorf("</%s> at byte %d closes nothing open (%v)", name, i, open)
				}
				open = open[:len(open)-1]
			} else {
				name, attrs, _ := strings.Cut(inner, " ")
				if !tags[name] {
					return fmt.Errorf("unknown tag %q at byte %d", name, i)
				}
				if name == "a" && !strings.HasPrefix(attrs, `href="http`) {
					return fmt.Errorf("a link without its address at byte %d: %q", i, inner)
				}
				open = append(open, name)
			}
			i += j
		case '&':
			j := strings.IndexByte(h[i:], ';')
			if j < 0 || !slices.Contains([]string{"&lt;", "&gt;", "&amp;", "&quot;"}, h[i:i+j+1]) {
				return fmt.Errorf("an entity cut at byte %d", i)
			}
		case '>':
			return fmt.Errorf("a stray > at byte %d", i)
		}
	}
	if len(open) > 0 {
		return fmt.Errorf("tags left open: %v", open)
	}
	return nil
}

// BenchmarkToHTML converts a typical model answer: a heading, emphasis,
// a list, a link and a code block.
func BenchmarkToHTML(b *testing.B) {
	md := "## Plan\n\nI **checked** the `config` and found _two_ issues:\n\n1. the [docs](https://example.com/a?b=1&c=2) are stale\n2. `a < b` fails\n\n```go\nif a < b && c {\n\treturn\n}\n```\n\nShall I fix both?"
	b.ReportAllocs()
	for b.Loop() {
		toHTML(md)
	}
}
