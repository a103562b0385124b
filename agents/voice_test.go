package agents

import (
	"context"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
	"github.com/jarvisbot/jarvisbot/skills"
)

// TestSpokenTurnOnlyVoiceMarkedSkillTakesOverV1A2: a message the owner
// spoke (Input.Voice) is taken over only by a voice-marked skill; an
// instruction-only skill without the mark, which takes a written message
// over, only joins a spoken one: the model is told it may use it.
func TestSpokenTurnOnlyVoiceMarkedSkillTakesOverV1A2(t *testing.T) {
	const msg = "please jot this on the shopping list: oat milk"
	list := func(voice bool) *skills.Skill {
		return &skills.Skill{Name: "shopping-list", Does: skills.KindInstructions, Voice: voice,
			Description: "Keeps the owner's shopping list.", Words: []string{"shopping list"},
			Body: "Add the items to the wiki page Shopping."}
	}
	for _, tt := range []struct {
		name   string
		marked bool
		voice  bool
		want   string
	}{
		{"written, unmarked: takes over", false, false, `Follow the skill "shopping-list"`},
		{"spoken, unmarked: only joins", false, true, `The skill "shopping-list" may fit`},
		{"spoken, voice-marked: takes over", true, true, `Follow the skill "shopping-list"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, "anthropic")
			enabled := []*skills.Skill{list(tt.marked)}
			e.rt.Skills = func(context.Context, string) (*skills.Ranker, error) { return skills.NewRanker(enabled), nil }
			e.llm.Push(fakellm.Step{Text: "Added."})
			r, err := e.rt.Turn(context.Background(), Input{Agent: "default", Chat: "console", Text: msg, Voice: tt.voice})
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Skills) != 1 || r.Skills[0] != "skill:shopping-list" {
				t.Fatalf("skills entering: %v, want the shopping list", r.Skills)
			}
			reqs := e.llm.Requests()
			if sys := reqs[len(reqs)-1].System; !strings.Contains(sys, tt.want) {
				t.Errorf("system prompt lacks %q:\n%s", tt.want, sys)
			}
		})
	}
}
