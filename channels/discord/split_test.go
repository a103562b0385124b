package discord

import (
	"strings"
	"testing"
)

func TestRender(t *testing.T) {
	for name, c := range map[string]struct{ in, want string }{
		"markdown Discord shows passes": {"# Title\n**bold** _it_ `code` [link](https://example.org)\n- a\n> quote", "# Title\n**bold** _it_ `code` [link](https://example.org)\n- a\n> quote"},
		"deep heading becomes bold":     {"#### Details ####\ntext", "**Details**\ntext"},
		"table becomes a code block":    {"Prices:\n| a | b |\n|---|:-:|\n| 1 | 2 |\nafter", "Prices:\n```\n| a | b |\n|---|:-:|\n| 1 | 2 |\n```\nafter"},
		"pipes without a rule stay":     {"| not a table |\ntext", "| not a table |\ntext"},
		"code is left alone":            {"```\n#### x\n| a | b |\n|---|---|\n```", "```\n#### x\n| a | b |\n|---|---|\n```"},
		"inline triple backticks":       {"```x``` and #### y", "```x``` and #### y"},
	} {
		if got := render(c.in); got != c.want {
			t.Errorf("%s: render(%q) = %q, want %q", name, c.in, got, c.want)
		}
	}
}

func TestSplit(t *testing.T) {
	para := func(c string, n int) string { return strings.Repeat(c, n) }
	for name, c := range map[string]struct {
		in   string
		max  int
		want []string
	}{
		"short is whole":         {"a\n\nb", 10, []string{"a\n\nb"}},
		"empty is nothing":       {" \n\n", 10, nil},
		"at paragraph breaks":    {para("a", 6) + "\n\n" + para("b", 6) + "\n\n" + para("c", 2), 10, []string{"aaaaaa", "bbbbbb\n\ncc"}},
		"then at line breaks":    {"aaaa\nbbbb\ncccc", 10, []string{"aaaa\nbbbb", "cccc"}},
		"then at spaces":         {"aaa bbb ccc ddd", 8, []string{"aaa bbb", "ccc ddd"}},
		"then anywhere":          {para("a", 12), 5, []string{"aaaaa", "aaaaa", "aa"}},
		"code block kept whole":  {"intro\n\n```\nx\n\ny\n```", 14, []string{"intro", "```\nx\n\ny\n```"}},
		"long code is reopened":  {"```go\nl1\nl2\nl3\nl4\n```", 16, []string{"```go\nl1\nl2\n```", "```go\nl3\nl4\n```"}},
		"unclosed code closed":   {"```\naaaa\nbbbb", 12, []string{"```\naaaa\n```", "```\nbbbb\n```"}},
		"single break kept":      {"see:\n```\nx\n```\n" + para("z", 12), 14, []string{"see:\n```\nx\n```", "zzzzzzzzzzzz"}},
		"wide runes count twice": {"😀😀😀 😀😀", 6, []string{"😀😀😀", "😀😀"}},
	} {
		got := split(c.in, c.max)
		if strings.Join(got, "|") != strings.Join(c.want, "|") || len(got) != len(c.want) {
			t.Errorf("%s: split(%q, %d) = %q, want %q", name, c.in, c.max, got, c.want)
		}
		for _, p := range got {
			if size(p) > c.max {
				t.Errorf("%s: part %q is longer than %d", name, p, c.max)
			}
		}
	}
}

func BenchmarkSplit(b *testing.B) {
	text := strings.Repeat("A paragraph of ordinary prose, long enough to matter.\n\n```go\nfmt.Println(1)\n```\n\n", 200)
	b.ReportAllocs()
	for b.Loop() {
		split(render(text), maxContent)
	}
}
