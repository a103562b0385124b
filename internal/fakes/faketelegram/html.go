package faketelegram

import (
	"fmt"
	"strconv"
	"strings"
)

// htmlTags are the tags of Telegram's parse_mode HTML.
var htmlTags = map[string]bool{
	"b": true, "strong": true, "i": true, "em": true, "u": true, "ins": true,
	"s": true, "strike": true, "del": true, "span": true, "tg-spoiler": true,
	"a": true, "code": true, "pre": true, "tg-emoji": true, "blockquote": true,
}

var entities = map[string]string{"lt": "<", "gt": ">", "amp": "&", "quot": `"`}

// parseHTML parses text as the Bot API does for parse_mode HTML and
// returns what the reader sees, or the complaint Telegram would make:
// unknown tags, end tags that close nothing or the wrong thing, tags left
// open, a "<" that starts no tag, an unknown named entity.
func parseHTML(text string) (string, error) {
	var out strings.Builder
	var open []string
	for i := 0; i < len(text); {
		switch text[i] {
		case '<':
			j := strings.IndexByte(text[i:], '>')
			if j < 0 {
				return "", fmt.Errorf("Unclosed start tag at byte offset %d", i)
			}
			inner := text[i+1 : i+j]
			if end, ok := strings.CutPrefix(inner, "/"); ok {
				name := strings.ToLower(strings.TrimSpace(end))
				if len(open) == 0 {
					return "", fmt.Errorf("Unexpected end tag at byte offset %d", i)
				}
				if open[len(open)-1] != name {
					return "", fmt.Errorf("Unmatched end tag at byte offset %d, expected \"</%s>\", found \"</%s>\"", i, open[len(open)-1], name)
				}
				open = open[:len(open)-1]
			} else {
				name := strings.ToLower(inner)
				if k := strings.IndexAny(name, " \t\n"); k >= 0 {
					name = name[:k]
				}
				if name == "" || !htmlTags[name] {
					return "", fmt.Errorf("Unsupported start tag \"%s\" at byte offset %d", name, i)
				}
				if name == "a" && !strings.Contains(inner, "href=") {
					return "", fmt.Errorf("Can't find href in <a> tag at byte offset %d", i)
				}
				open = append(open, name)
			}
			i += j + 1
		case '&':
			j := strings.IndexByte(text[i:], ';')
			if j < 0 {
				out.WriteByte('&') // a lone & is text
				i++
				continue
			}
			name := text[i+1 : i+j]
			if v, ok := entities[name]; ok {
				out.WriteString(v)
			} else if n, ok := numericEntity(name); ok {
				out.WriteRune(n)
			} else if strings.ContainsAny(name, " <&") {
				out.WriteByte('&')
				i++
				continue
			} else {
				return "", fmt.Errorf("Unsupported HTML entity \"&%s;\" at byte offset %d", name, i)
			}
			i += j + 1
		default:
			out.WriteByte(text[i])
			i++
		}
	}
	if len(open) > 0 {
		return "", fmt.Errorf("Can't find end tag corresponding to start tag \"%s\"", open[len(open)-1])
	}
	return out.String(), nil
}

func numericEntity(name string) (rune, bool) {
	rest, ok := strings.CutPrefix(name, "#")
	if !ok {
		return 0, false
	}
	base := 10
	if h, ok := strings.CutPrefix(strings.ToLower(rest), "x"); ok {
		rest, base = h, 16
	}
	n, err := strconv.ParseInt(rest, base, 32)
	if err != nil {
		return 0, false
	}
	return rune(n), true
}
