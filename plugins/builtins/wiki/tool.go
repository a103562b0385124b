package wiki

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog"
)

// ID is the tool's capability id.
const ID = "builtin:wiki"

// maxToolLimit caps what the model may ask of search and list, so that one
// call cannot flood its context.
const maxToolLimit = 50

// schema is the tool's input schema, kept compact and constant so that the
// bytes offered to the model, and what they cost, never vary.
const schema = `{"type":"object",` +
	`"properties":{` +
	`"action":{"type":"string","enum":["read","search","list","write","append"],"description":"read a note, search notes, list all notes, write (create or replace) a note, or append to one"},` +
	`"name":{"type":"string","description":"note name, a path like projects/garden; for read, write and append"},` +
	`"query":{"type":"string","description":"words to look for in titles and bodies, case and accents ignored; for search"},` +
	`"body":{"type":"string","description":"the whole Markdown text of the note, replacing what was there; for write"},` +
	`"text":{"type":"string","description":"Markdown to add at the end of the note; for append"},` +
	`"limit":{"type":"integer","minimum":1,"maximum":50,"description":"most results to return for search or list (search default 10)"}},` +
	`"required":["action"],"additionalProperties":false}`

// Capability describes the wiki as a catalog entry. Reading is safe; writing
// is recorded on the activity board. Delete is left to the owner's command
// line: a model that removes notes could not be undone.
func (w *Wiki) Capability() catalog.Capability {
	return catalog.Capability{
		ID:     ID,
		Kind:   catalog.KindBuiltin,
		Source: "builtin",
		Name:   "wiki",
		Description: "The owner's personal wiki of Markdown notes (names like projects/garden). " +
			"Search or list to find notes, read one to see it, write to create or replace a note " +
			"(read it first: write replaces the whole body), append to add to a note without rewriting it.",
		InputSchema: json.RawMessage(schema),
		Tier:        catalog.TierMonitor,
		ActionTiers: map[string]catalog.Tier{
			"read":   catalog.TierSafe,
			"search": catalog.TierSafe,
			"list":   catalog.TierSafe,
			"write":  catalog.TierMonitor,
			"append": catalog.TierMonitor,
		},
		Connected: true,
	}
}

// callArgs are the tool's arguments. Body and Text are pointers so that a
// missing field differs from an empty one.
type callArgs struct {
	Action string  `json:"action"`
	Name   string  `json:"name"`
	Query  string  `json:"query"`
	Body   *string `json:"body"`
	Text   *string `json:"text"`
	Limit  int     `json:"limit"`
}

// Call runs one tool call from the model and returns its result as compact
// plain text. Errors are EINVALID when the model can correct its arguments,
// ENOTFOUND for a missing note; their messages are written for the model.
func (w *Wiki) Call(ctx context.Context, args json.RawMessage) (string, error) {
	a, err := parseArgs(args)
	if err != nil {
		return "", err
	}
	switch a.Action {
	case "read":
		if err := need("name", a.Name, a.Action); err != nil {
			return "", err
		}
		n, err := w.Read(ctx, a.Name)
		if err != nil {
			return "", err
		}
		body := n.Body
		if strings.TrimSpace(body) == "" {
			body = "(empty)\n"
		}
		return fmt.Sprintf("note %s (modified %s)\n\n%s", n.Name, n.Modified.Format("2006-01-02 15:04"), body), nil
	case "search":
		if err := need("query", a.Query, a.Action); err != nil {
			return "", err
		}
		hits, err := w.Search(ctx, a.Query, a.Limit)
		if err != nil {
			return "", err
		}
		if len(hits) == 0 {
			return fmt.Sprintf("no notes match %q", a.Query), nil
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%d %s for %q:\n", len(hits), plural(len(hits), "note", "notes"), a.Query)
		for i, h := range hits {
			fmt.Fprintf(&b, "%d. %s — %s\n", i+1, h.Name, h.Title)
			if h.Snippet != "" {
				fmt.Fprintf(&b, "   %s\n", h.Snippet)
			}
		}
		return b.String(), nil
	case "list":
		notes, err := w.List(ctx)
		if err != nil {
			return "", err
		}
		if len(notes) == 0 {
			return "the wiki has no notes yet", nil
		}
		var b strings.Builder
		shown := notes
		if a.Limit > 0 && len(notes) > a.Limit {
			shown = notes[:a.Limit]
			fmt.Fprintf(&b, "%d notes, the first %d:\n", len(notes), a.Limit)
		} else {
			fmt.Fprintf(&b, "%d %s:\n", len(notes), plural(len(notes), "note", "notes"))
		}
		for _, n := range shown {
			if n.Title == n.Name {
				fmt.Fprintf(&b, "%s\n", n.Name)
			} else {
				fmt.Fprintf(&b, "%s — %s\n", n.Name, n.Title)
			}
		}
		return b.String(), nil
	case "write":
		if err := need("name", a.Name, a.Action); err != nil {
			return "", err
		}
		body := a.Body
		if body == nil {
			body = a.Text // the model's slip between the two fields costs nothing
		}
		if body == nil {
			return "", jarvisbot.Errorf(jarvisbot.EINVALID, `write needs the field "body": the whole Markdown text of the note`)
		}
		n, err := w.Write(ctx, a.Name, *body)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("saved %s (%d bytes)", n.Name, len(n.Body)), nil
	case "append":
		if err := need("name", a.Name, a.Action); err != nil {
			return "", err
		}
		text := a.Text
		if text == nil {
			text = a.Body
		}
		if text == nil || *text == "" {
			return "", jarvisbot.Errorf(jarvisbot.EINVALID, `append needs the field "text": the Markdown to add at the end of the note`)
		}
		n, err := w.Append(ctx, a.Name, *text)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("appended %d bytes to %s (now %d bytes)", len(*text), n.Name, len(n.Body)), nil
	case "":
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, `missing field "action": one of read, search, list, write, append`)
	}
	return "", jarvisbot.Errorf(jarvisbot.EINVALID, "unknown action %q: use read, search, list, write or append", a.Action)
}

// Run runs one call of builtin:wiki for the agent runtime: it is the
// wiki's runner (agents.Runner).
func (w *Wiki) Run(ctx context.Context, c catalog.Call) (catalog.Output, error) {
	text, err := w.Call(ctx, c.Args)
	return catalog.Output{Text: text}, err
}

// parseArgs decodes and checks the arguments object. Unknown fields are
// refused so that a misspelt field ("content") is reported, not ignored.
func parseArgs(raw json.RawMessage) (callArgs, error) {
	var a callArgs
	if len(bytes.TrimSpace(raw)) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return a, jarvisbot.Errorf(jarvisbot.EINVALID, `the wiki needs arguments, such as {"action":"search","query":"garden"}`)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return a, jarvisbot.Errorf(jarvisbot.EINVALID, "wiki arguments are not a valid JSON object with the fields action, name, query, body, text, limit: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return a, jarvisbot.Errorf(jarvisbot.EINVALID, "wiki arguments have text after the JSON object: send one object")
	}
	a.Action = strings.ToLower(strings.TrimSpace(a.Action))
	switch {
	case a.Limit < 0:
		return a, jarvisbot.Errorf(jarvisbot.EINVALID, "limit %d is negative: give a number from 1 to %d, or leave it out", a.Limit, maxToolLimit)
	case a.Limit > maxToolLimit:
		a.Limit = maxToolLimit
	}
	return a, nil
}

// need reports a missing required field of action.
func need(field, value, action string) error {
	if strings.TrimSpace(value) == "" {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "%s needs the field %q", action, field)
	}
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Describe says what a call will do, for the approval request the owner
// decides on (CH2): writing names the page, whether it replaces one, and the
// text. An owner who raises the wiki's tier to ask reads this instead of
// its arguments as JSON.
func (w *Wiki) Describe(ctx context.Context, c catalog.Call) (catalog.Description, bool) {
	a, err := parseArgs(c.Args)
	if err != nil {
		return catalog.Description{}, false
	}
	page := []catalog.Line{{Label: "Page", Value: a.Name}}
	switch a.Action {
	case "write":
		body := a.Body
		if body == nil {
			body = a.Text
		}
		what := "Create the wiki page " + a.Name
		if _, err := w.Read(ctx, a.Name); err == nil {
			what = "Replace the whole text of the wiki page " + a.Name
		}
		if body == nil {
			return catalog.Description{What: what, Lines: page}, true
		}
		return catalog.Description{What: what, Lines: append(page, catalog.Line{Label: "Text", Value: *body})}, true
	case "append":
		text := a.Text
		if text == nil {
			text = a.Body
		}
		d := catalog.Description{What: "Add to the end of the wiki page " + a.Name, Lines: page}
		if text != nil {
			d.Lines = append(d.Lines, catalog.Line{Label: "Text", Value: *text})
		}
		return d, true
	case "read":
		return catalog.Description{What: "Read the wiki page " + a.Name, Lines: page}, true
	case "search":
		return catalog.Description{What: "Search the wiki", Lines: []catalog.Line{{Label: "Words", Value: a.Query}}}, true
	case "list":
		return catalog.Description{What: "List the wiki's pages"}, true
	}
	return catalog.Description{}, false
}
