package evalset

import (
	"slices"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot"
)

func TestReadWantForms(t *testing.T) {
	in := `{"text": "a", "want": ["github"], "tag": "pos", "ok": ["x"]}

{"text": "b", "want": "gmail", "tag": "kw"}
{"text": "c", "want": null, "tag": "neg"}
{"text": "d", "want": [], "tag": "neg"}
`
	cases, err := Read(strings.NewReader(in), "set.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"github"}, {"gmail"}, nil, {}}
	if len(cases) != 4 {
		t.Fatalf("%d cases", len(cases))
	}
	for i, c := range cases {
		if !slices.Equal(c.Want, want[i]) {
			t.Errorf("case %d want %v, got %v", i, want[i], c.Want)
		}
	}
	if cases[1].Line != 3 || !slices.Equal(cases[0].OK, []string{"x"}) {
		t.Errorf("line %d ok %v", cases[1].Line, cases[0].OK)
	}
}

func TestReadBadLines(t *testing.T) {
	for _, in := range []string{`{"text": `, `{"text": "a", "want": 5}`, `[1,2]`} {
		_, err := Read(strings.NewReader("\n"+in), "set.jsonl")
		if jarvisbot.ErrorCode(err) != jarvisbot.EINVALID || !strings.Contains(err.Error(), "set.jsonl line 2") {
			t.Errorf("%q: error %v", in, err)
		}
	}
}
