package catalog_test

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/internal/fixtures"
)

func TestReadSnapshotRejectsBadInput(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", ``, "not valid"},
		{"not json", `hello`, "not valid"},
		{"array", `[]`, "not valid"},
		{"no format", `{"mcp_servers":[]}`, `missing "format"`},
		{"other format", `{"format":"x/2","mcp_servers":[]}`, "not supported"},
		{"bad server name", `{"format":"jarvisbot-catalog-snapshot/1","mcp_servers":[{"name":"a b","tools":[]}]}`, "mcp_servers[0]"},
		{"duplicate server", `{"format":"jarvisbot-catalog-snapshot/1","mcp_servers":[{"name":"a","tools":[]},{"name":"a","tools":[]}]}`, "twice"},
		{"empty tool", `{"format":"jarvisbot-catalog-snapshot/1","mcp_servers":[{"name":"a","tools":[{"name":""}]}]}`, "tools[0]"},
		{"duplicate tool", `{"format":"jarvisbot-catalog-snapshot/1","mcp_servers":[{"name":"a","tools":[{"name":"x"},{"name":"x"}]}]}`, "twice"},
		{"schema not object", `{"format":"jarvisbot-catalog-snapshot/1","mcp_servers":[{"name":"a","tools":[{"name":"x","inputSchema":[1]}]}]}`, "inputSchema"},
		{"wrong type", `{"format":"jarvisbot-catalog-snapshot/1","mcp_servers":[{"name":5}]}`, "line 1"},
		{"trailing data", `{"format":"jarvisbot-catalog-snapshot/1","mcp_servers":[]} {}`, "after its JSON"},
		{"invalid utf-8", "{\"format\":\"\xff\"}", "UTF-8"},
		{"slash in tool", `{"format":"jarvisbot-catalog-snapshot/1","mcp_servers":[{"name":"a","tools":[{"name":"x/y"}]}]}`, "'/'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := catalog.ReadSnapshot(strings.NewReader(tt.in), "snap.json")
			if err == nil {
				t.Fatal("accepted")
			}
			if jarvisbot.ErrorCode(err) != jarvisbot.EINVALID || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "snap.json") {
				t.Errorf("error %q (code %s): want EINVALID naming the file and %q", err, jarvisbot.ErrorCode(err), tt.want)
			}
		})
	}
}

// TestSnapshotRoundTrip: what `catalog export` writes, `route --catalog`
// reads back to the same catalog.
func TestSnapshotRoundTrip(t *testing.T) {
	v := loadSnapshot(t, "catalog-extended.json").View()
	var buf bytes.Buffer
	if err := catalog.WriteSnapshot(&buf, mustSnapshot(t, v)); err != nil {
		t.Fatal(err)
	}
	snap, err := catalog.ReadSnapshot(&buf, "export")
	if err != nil {
		t.Fatal(err)
	}
	c2 := catalog.New()
	if err := c2.LoadSnapshot(snap); err != nil {
		t.Fatal(err)
	}
	v2 := c2.View()
	if len(v2.Capabilities()) != len(v.Capabilities()) || len(v2.Servers()) != 17 {
		t.Fatalf("round trip: %d capabilities, %d servers; want %d, 17", len(v2.Capabilities()), len(v2.Servers()), len(v.Capabilities()))
	}
	for i, cp := range v.Capabilities() {
		cp2 := v2.Capabilities()[i]
		if cp.ID != cp2.ID || cp.Tier != cp2.Tier || cp.Description != cp2.Description || !bytes.Equal(cp.InputSchema, cp2.InputSchema) {
			t.Errorf("%s changed in the round trip", cp.ID)
		}
	}
}

func FuzzReadSnapshot(f *testing.F) {
	b, err := os.ReadFile(fixtures.Path(f, "catalog-seed.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b[:4096])
	f.Add([]byte(`{"format":"jarvisbot-catalog-snapshot/1","mcp_servers":[{"name":"a","tools":[{"name":"x","inputSchema":{"type":"object"}}]}]}`))
	f.Add([]byte(`{"format":"jarvisbot-catalog-snapshot/1","mcp_servers":[{"name":"a","card":["repo"],"tools":[{"name":"a_b","annotations":{"destructiveHint":true}}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		snap, err := catalog.ReadSnapshot(bytes.NewReader(data), "fuzz")
		if err != nil {
			if jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
				t.Fatalf("error without EINVALID: %v", err)
			}
			return
		}
		c := catalog.New()
		if err := c.LoadSnapshot(snap); err != nil {
			t.Fatalf("validated snapshot did not load: %v", err)
		}
		var turn catalog.Turn
		c.View().Plan(catalog.Policy{}).Turn("open a pull request in the repo", &turn)
	})
}

// TestReadSnapshotTooLargeSizeLimit: a snapshot file over the limit is
// refused before it is read, with an error naming it, its size and the
// limit.
func TestReadSnapshotTooLargeSizeLimit(t *testing.T) {
	path := t.TempDir() + "/huge.json"
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, catalog.MaxSnapshotBytes+1<<20); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, err = catalog.ReadSnapshot(f, path)
	if jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
		t.Fatalf("%v, want EINVALID", err)
	}
	for _, want := range []string{path, "is too large: 65 MiB (68157440 bytes)", "at most 64 MiB"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

// mustSnapshot is v's snapshot, failing t if a stored list cannot be read
// again.
func mustSnapshot(t *testing.T, v *catalog.View) *catalog.Snapshot {
	t.Helper()
	s, err := v.Snapshot(context.Background(), "test")
	if err != nil {
		t.Fatal(err)
	}
	return s
}
