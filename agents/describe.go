package agents

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/internal/visible"
)

// What an approval request says (CH2) is read on a phone, between the
// buttons: a sentence, a few labelled lines, the agent's reason. These
// bound it, so that a request fits a Telegram or Discord message whatever
// the call's arguments hold; the dashboard's request page shows them whole.
const (
	// describeTimeout bounds what a Describer may look up (the event an id
	// names): the owner waits for the request meanwhile.
	describeTimeout = 5 * time.Second
	// maxValue is the most characters of a one-line value shown.
	maxValue = 200
	// maxTextLines and maxTextLine bound a value of several lines (a
	// mail's text, a page's): its first lines are shown.
	maxTextLines = 4
	maxTextLine  = 120
	// maxLines is the most labelled lines one request shows.
	maxLines = 10
	// maxReason is the most characters of the agent's reason shown.
	maxReason = 200
	// MaxSummary bounds a request's whole text as stored (store.Approval's
	// Summary): with the channel's own lines it stays within Discord's
	// 2,000 characters.
	MaxSummary = 1500
)

// approvalSummary says in the owner's words what an ask-tier call will do:
// a sentence, the arguments that matter as labelled lines (the tool's own
// Describer's, else every argument in the generic form) and, when the model
// said one before the call, the agent's reason in its own words.
func (r *Runtime) approvalSummary(ctx context.Context, in Input, cp *catalog.Capability, args json.RawMessage, reason string) string {
	d, ok := catalog.Description{}, false
	if run, is := r.Runners.For(cp).(Describer); is {
		dctx, cancel := context.WithTimeout(ctx, describeTimeout)
		d, ok = run.Describe(dctx, catalog.Call{Cap: cp, Args: args, Agent: in.Agent, Chat: in.Chat})
		cancel()
	}
	if !ok || d.What == "" {
		d = Generic(genericWhat(cp), args)
	}
	return RenderSummary(d, reason)
}

// genericWhat is the sentence of a call whose tool does not describe its
// calls.
func genericWhat(cp *catalog.Capability) string {
	switch {
	case cp.Kind == catalog.KindMCP:
		return fmt.Sprintf("Use the tool %s of the MCP server %s", cp.Tool, cp.Server)
	case cp.Kind == catalog.KindCLI:
		return "Run the program " + cp.Name
	case cp.Server != "":
		return fmt.Sprintf("Use %s of %s", cp.Tool, cp.Server)
	}
	return "Use " + cp.ID
}

// Generic is the labelled form of a call whose tool does not describe it
// (MCP tools, CLI programs): each argument by its name, in the order the
// model gave them, strings as they are, numbers and booleans as written,
// nested values as compact JSON. Arguments that are not an object are one
// line.
func Generic(what string, args json.RawMessage) catalog.Description {
	d := catalog.Description{What: what}
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("{}")) || bytes.Equal(trimmed, []byte("null")) {
		return d
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return catalog.Description{What: what, Lines: []catalog.Line{{Label: "Arguments", Value: compact(trimmed)}}}
	}
	for dec.More() {
		tok, err := dec.Token()
		name, _ := tok.(string)
		var v json.RawMessage
		if err == nil {
			err = dec.Decode(&v)
		}
		if err != nil {
			// Not JSON the model could have meant as arguments: shown as
			// it came, for the owner to judge.
			return catalog.Description{What: what, Lines: []catalog.Line{{Label: "Arguments", Value: string(trimmed)}}}
		}
		d.Lines = append(d.Lines, catalog.Line{Label: name, Value: argValue(v)})
	}
	return d
}

// argValue shows one argument: a string as its text, anything else as
// compact JSON.
func argValue(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	return compact(v)
}

func compact(v []byte) string {
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return string(v)
	}
	return b.String()
}

// RenderSummary writes a description as a request's text: the sentence,
// then "Label: value" lines, a value of several lines under its label,
// indented, then the agent's reason. Every part is shown with its control
// and invisible characters escaped (X2), long values are cut saying how
// long they were, and the whole stays within MaxSummary.
func RenderSummary(d catalog.Description, reason string) string {
	head := oneLine(d.What, maxValue)
	var tail string
	if reason = Reason(reason); reason != "" {
		tail = "\nThe agent says: \"" + reason + "\""
	}
	// Room for the lines, keeping some for saying how many were left out.
	room := MaxSummary - utf8.RuneCountInString(head) - utf8.RuneCountInString(tail) - 50
	var b strings.Builder
	b.WriteString(head)
	for i, l := range d.Lines {
		line := "\n" + renderLine(l)
		if room -= utf8.RuneCountInString(line); i == maxLines || room < 0 {
			fmt.Fprintf(&b, "\n… and %d more (the dashboard shows them all)", len(d.Lines)-i)
			break
		}
		b.WriteString(line)
	}
	b.WriteString(tail)
	return clip(b.String(), MaxSummary)
}

// renderLine writes one labelled value.
func renderLine(l catalog.Line) string {
	label := oneLine(l.Label, 40)
	v := strings.TrimRight(strings.ReplaceAll(l.Value, "\r\n", "\n"), "\n")
	if v == "" {
		return label + ": (empty)"
	}
	if !strings.Contains(v, "\n") {
		return label + ": " + cut(visible.Text(v), maxValue)
	}
	lines := strings.Split(v, "\n")
	var b strings.Builder
	b.WriteString(label + ":")
	shown := min(len(lines), maxTextLines)
	for _, line := range lines[:shown] {
		b.WriteString("\n  " + cut(visible.Text(line), maxTextLine))
	}
	if rest := len(lines) - shown; rest > 0 {
		more := "lines"
		if rest == 1 {
			more = "line"
		}
		fmt.Fprintf(&b, "\n  … (%s more %s, %s chars in all)", count(rest), more, count(utf8.RuneCountInString(v)))
	}
	return b.String()
}

// Reason is the agent's own reason for a call as a request shows it: the
// first line of what the model wrote before the call, bounded, its
// control characters escaped; "" when it wrote nothing.
func Reason(text string) string {
	for line := range strings.SplitSeq(text, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			return oneLine(line, maxReason)
		}
	}
	return ""
}

// oneLine folds s onto one visible line of at most n characters.
func oneLine(s string, n int) string {
	return cut(visible.Text(strings.Join(strings.Fields(s), " ")), n)
}

// cut shortens s to n characters, saying how long it was: "…
// (2,431 chars)".
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	total := utf8.RuneCountInString(s)
	return string([]rune(s)[:n]) + fmt.Sprintf("… (%s chars)", count(total))
}

// clip bounds a whole text to n characters at a line's end where it can.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)[:n-1]
	if i := strings.LastIndex(string(r), "\n"); i > 0 {
		return string(r)[:i] + "\n…"
	}
	return string(r) + "…"
}

// count writes n with thousands separated: 2,431.
func count(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
