package cliagent

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/agents"
	"github.com/jarvisbot/jarvisbot/agents/llm"
)

// TestPromptFitsOnTheCommandLineM5: a long conversation is cut from its
// oldest end so the prompt, one argument, still starts the CLI (Linux
// refuses an argument over 128 KiB); a message that cannot fit by itself
// is refused with what to do.
func TestPromptFitsOnTheCommandLineM5(t *testing.T) {
	var history []llm.Message
	for i := range 600 {
		role := llm.RoleUser
		if i%2 == 1 {
			role = llm.RoleAssistant
		}
		history = append(history, llm.Message{Role: role, Text: fmt.Sprintf("line %04d ", i) + strings.Repeat("ä", 500)})
	}
	turn := agents.DelegateTurn{Text: "and now the latest question", History: history}
	for _, system := range []string{"", strings.Repeat("be brief. ", 2000)} {
		p, err := prompt(turn, system)
		if err != nil {
			t.Fatal(err)
		}
		if len(p) > maxPromptBytes {
			t.Fatalf("prompt is %d bytes, over %d", len(p), maxPromptBytes)
		}
		if !strings.Contains(p, "line 0599 ") || strings.Contains(p, "line 0000 ") || !strings.HasSuffix(p, turn.Text) {
			t.Errorf("kept the wrong end of the conversation or lost the message (system %d bytes)", len(system))
		}
		// The kernel's own verdict: the prompt as an argument starts a program.
		if err := exec.Command("true", "--", p).Run(); err != nil {
			t.Fatalf("a %d-byte prompt did not start a program: %v", len(p), err)
		}
	}

	// Resumed sessions carry no history, and the message stands alone.
	if p, err := prompt(agents.DelegateTurn{Text: "hi", History: history, Session: "s1"}, ""); err != nil || p != "hi" {
		t.Errorf("resumed: %q %v", p, err)
	}

	_, err := prompt(agents.DelegateTurn{Text: strings.Repeat("x", maxPromptBytes+1)}, "")
	if jarvisbot.ErrorCode(err) != jarvisbot.EINVALID || !strings.Contains(err.Error(), "shorten it") {
		t.Errorf("an over-long message: %v", err)
	}
}
