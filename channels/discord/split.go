package discord

import (
	"regexp"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// maxContent is Discord's limit for a message's content. It is counted in
// UTF-16 units, the strictest reading of "2000 characters".
const maxContent = 2000

// size is the length of s as maxContent counts it.
func size(s string) int {
	n := 0
	for _, r := range s { // invalid bytes come as U+FFFD, one unit
		n += utf16.RuneLen(r)
	}
	return n
}

// render adapts the model's Markdown to Discord's, which renders most of
// it as written (emphasis, lists, quotes, code, links, headings # to ###).
// Only what Discord shows as raw syntax changes: deeper headings become
// bold lines and tables become code blocks, where their columns line up.
// Code blocks are left alone.
func render(md string) string {
	lines := strings.Split(strings.ReplaceAll(md, "\r\n", "\n"), "\n")
	var out []string
	inFence := false
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if isFence(line) {
			inFence = !inFence
			out = append(out, line)
			continue
		}
		if inFence {
			out = append(out, line)
			continue
		}
		if m := deepHeading().FindStringSubmatch(line); m != nil {
			out = append(out, "**"+strings.TrimSpace(m[1])+"**")
			continue
		}
		if i+1 < len(lines) && isTableRow(line) && tableRule().MatchString(strings.TrimSpace(lines[i+1])) {
			out = append(out, "```")
			for ; i < len(lines) && isTableRow(lines[i]); i++ {
				out = append(out, lines[i])
			}
			out = append(out, "```")
			i--
			continue
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

var (
	deepHeading = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^ {0,3}#{4,6}\s+(.*?)\s*#*\s*$`) })
	tableRule   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?$`) })
)

func isTableRow(line string) bool {
	t := strings.TrimSpace(line)
	return strings.HasPrefix(t, "|") && strings.Count(t, "|") >= 2
}

// isFence reports whether line opens or closes a ``` code block. A line
// such as "```x```" is inline code, not a fence.
func isFence(line string) bool {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 || !strings.HasPrefix(t, "```") {
		return false
	}
	return !strings.Contains(strings.TrimLeft(t, "`"), "```")
}

// block is a paragraph, or a fenced code block with its fences.
type block struct {
	sep   string   // the line breaks before it in the text
	lines []string // as written; a code block's first line is its opening fence
	code  bool
}

func blocks(text string) []block {
	var out []block
	var cur *block
	breaks := 0
	for _, line := range strings.Split(text, "\n") {
		switch {
		case cur != nil && cur.code:
			cur.lines = append(cur.lines, line)
			if len(cur.lines) > 1 && isFence(line) {
				cur = nil
			}
			continue
		case strings.TrimSpace(line) == "":
			cur = nil
			breaks++
			continue
		}
		if cur == nil || isFence(line) {
			sep := strings.Repeat("\n", breaks+1)
			if len(out) == 0 {
				sep = ""
			}
			out = append(out, block{sep: sep, code: isFence(line)})
			cur = &out[len(out)-1]
			breaks = 0
		}
		cur.lines = append(cur.lines, line)
	}
	return out
}

// split cuts text into messages of at most max, at paragraph breaks when
// it can, else at line breaks, then spaces. A code block is never cut
// open: one too long for a message is closed at the end of each part and
// reopened, with its language, at the start of the next.
func split(text string, max int) []string {
	text = strings.Trim(text, "\n")
	if strings.TrimSpace(text) == "" {
		return nil
	}
	if size(text) <= max {
		return []string{text}
	}
	var parts []string
	var cur strings.Builder
	n := 0 // size of cur
	add := func(sep, piece string) {
		ps := size(piece)
		switch {
		case cur.Len() == 0:
		case n+size(sep)+ps <= max:
			cur.WriteString(sep)
			n += size(sep)
		default:
			parts = append(parts, cur.String())
			cur.Reset()
			n = 0
		}
		cur.WriteString(piece)
		n += ps
	}
	for _, b := range blocks(text) {
		whole := strings.Join(b.lines, "\n")
		if size(whole) <= max {
			add(b.sep, whole)
			continue
		}
		var pieces []string
		if b.code {
			pieces = splitCode(b.lines, max)
		} else {
			pieces = splitLines(b.lines, max)
		}
		for i, p := range pieces {
			sep := "\n"
			if i == 0 {
				sep = b.sep
			}
			add(sep, p)
		}
	}
	if cur.Len() > 0 {
		parts = append(parts, cur.String())
	}
	return parts
}

// splitCode cuts a code block into closed code blocks of at most max.
func splitCode(lines []string, max int) []string {
	open := strings.TrimRight(lines[0], " ")
	body := lines[1:]
	if n := len(body); n > 0 && isFence(body[n-1]) {
		body = body[:n-1]
	}
	budget := max - size(open) - size("\n\n```")
	if budget < 1 {
		// A fence line near the limit on its own: give up the language.
		open, budget = "```", max-size("```\n\n```")
	}
	var out []string
	for _, chunk := range splitLines(body, budget) {
		out = append(out, open+"\n"+chunk+"\n```")
	}
	return out
}

// splitLines packs lines into pieces of at most max, cutting a line that
// is too long at spaces, or anywhere as a last resort.
func splitLines(lines []string, max int) []string {
	var out, cur []string
	n := 0 // size of cur joined by line breaks
	for _, line := range lines {
		if len(cur) > 0 && n+1+size(line) <= max {
			cur, n = append(cur, line), n+1+size(line)
			continue
		}
		if len(cur) > 0 {
			out = append(out, strings.Join(cur, "\n"))
		}
		cur, n = nil, 0
		if size(line) > max {
			pieces := splitWords(line, max)
			out = append(out, pieces[:len(pieces)-1]...)
			line = pieces[len(pieces)-1]
		}
		cur, n = []string{line}, size(line)
	}
	if len(cur) > 0 {
		out = append(out, strings.Join(cur, "\n"))
	}
	return out
}

// splitWords cuts one long line at spaces, or inside a word longer than max.
func splitWords(line string, max int) []string {
	var out []string
	for size(line) > max {
		cut := 0 // byte offset of the longest prefix within max
		n := 0
		for i, r := range line {
			if n+utf16.RuneLen(r) > max {
				cut = i
				break
			}
			n += utf16.RuneLen(r)
		}
		if cut == 0 { // max is below one rune: keep the rune whole
			_, w := utf8.DecodeRuneInString(line)
			cut = w
		}
		if sp := strings.LastIndexByte(line[:min(cut+1, len(line))], ' '); sp > 0 {
			out = append(out, strings.TrimRight(line[:sp], " "))
			line = strings.TrimLeft(line[sp:], " ")
			continue
		}
		out = append(out, line[:cut])
		line = line[cut:]
	}
	return append(out, line)
}
