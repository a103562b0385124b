package sqlstore

import (
	"context"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
)

// TestNamesAndTextsHaveLimitsX1X2: every door writes through the store,
// so the store refuses a text over its limit (naming the field and the
// limit), a NUL byte, a one-line label with a control character and an
// MCP server name with one; a text's other control characters are kept
// for the view to escape.
func TestNamesAndTextsHaveLimitsX1X2(t *testing.T) {
	ctx := context.Background()
	db := openTest(t, testTarget(t))
	if err := db.CreateAgent(ctx, store.Agent{Name: "notes", Description: "keeps notes"}); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("x", 2<<10)
	cases := []struct {
		name string
		do   func() error
		want []string // in the error; nil: accepted
	}{
		{"long agent description", func() error { return db.CreateAgent(ctx, store.Agent{Name: "big", Description: long}) },
			[]string{"the description of agent big", "2 KiB", "at most 1 KiB"}},
		{"long description on update", func() error { return db.UpdateAgent(ctx, store.Agent{Name: "notes", Description: long}) },
			[]string{"the description of agent notes", "at most 1 KiB"}},
		{"NUL in a description", func() error { return db.CreateAgent(ctx, store.Agent{Name: "nul", Description: "a\x00b"}) },
			[]string{"NUL"}},
		{"ESC in a description is kept", func() error { return db.CreateAgent(ctx, store.Agent{Name: "esc", Description: "red \x1b[31m text"}) }, nil},
		{"long note", func() error {
			_, err := db.AddNote(ctx, store.Note{Agent: "notes", From: "app", Text: strings.Repeat("n", 5<<10)})
			return err
		}, []string{"the note for agent notes", "has 5120 characters", "at most 4000"}},
		{"a note at the bound in two-byte characters is kept", func() error {
			_, err := db.AddNote(ctx, store.Note{Agent: "notes", From: "app", Text: strings.Repeat("é", store.MaxNoteLen)})
			return err
		}, nil},
		{"long job title", func() error {
			_, err := db.AddJob(ctx, store.Job{App: "ci", Title: strings.Repeat("t", 201), Text: "x", Agent: "notes"})
			return err
		}, []string{"the title of a job", "at most 200 bytes"}},
		{"control character in a job title", func() error {
			_, err := db.AddJob(ctx, store.Job{App: "ci", Title: "build\x1b[2J", Text: "x", Agent: "notes"})
			return err
		}, []string{"the title of a job", `'\x1b'`}},
		{"long job text", func() error {
			_, err := db.AddJob(ctx, store.Job{App: "ci", Title: "t", Text: strings.Repeat("j", 65<<10), Agent: "notes"})
			return err
		}, []string{"the text of a job", "at most 64 KiB"}},
		{"MCP server name with ESC", func() error {
			return db.AddMCPServer(ctx, store.MCPServer{Name: "gh\x1b[2J", Transport: "stdio", Command: "x"})
		}, []string{"MCP server name", `'\x1b'`}},
		{"long MCP server name", func() error {
			return db.AddMCPServer(ctx, store.MCPServer{Name: strings.Repeat("s", 65), Transport: "stdio", Command: "x"})
		}, []string{"MCP server name", "at most 64"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.do()
			if c.want == nil {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
				t.Fatalf("err %v, want EINVALID", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q does not say %q", err, w)
				}
			}
		})
	}
	if servers, _ := db.MCPServers(ctx); len(servers) != 0 {
		t.Errorf("refused servers were stored: %+v", servers)
	}
}
