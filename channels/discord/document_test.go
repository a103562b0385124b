package discord

import (
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/channels"
)

// TestPlainTextIsShownAsWrittenX5: a Plain message renders no Markdown,
// masked link or mention, draws no embed, and when split every part
// starts with its first line (who it is from).
func TestPlainTextIsShownAsWrittenX5(t *testing.T) {
	t.Parallel()
	srv, b := running(t, &recorder{})
	body := strings.Repeat("**not bold** [x](y) <@1> ", 120) // ~3,000 characters, more escaped
	if _, err := b.Send(t.Context(), channels.Outgoing{Chat: "discord:" + guildChan, Text: "From app ops:\n" + body, Plain: true}); err != nil {
		t.Fatal(err)
	}
	sent := srv.Sent()
	if len(sent) < 2 {
		t.Fatalf("sent %d parts, want it split", len(sent))
	}
	for i, m := range sent {
		if !strings.HasPrefix(m.Content, "From app ops\\:\n") || m.Flags&4 == 0 || size(m.Content) > maxContent {
			t.Errorf("part %d: flags %d, %d characters, starts %.30q", i, m.Flags, size(m.Content), m.Content)
		}
		if strings.Contains(m.Content, "**not") || strings.Contains(m.Content, "[x](y)") || strings.Contains(m.Content, "<@1>") {
			t.Errorf("part %d renders Markdown: %.100q", i, m.Content)
		}
	}
}

// TestSendDocumentX5: a file goes as an attachment with the caption shown
// as written and no embeds.
func TestSendDocumentX5(t *testing.T) {
	t.Parallel()
	srv, b := running(t, &recorder{})
	if _, err := b.SendDocument(t.Context(), channels.Document{Chat: "discord:" + guildChan, Name: "notice.txt", Data: []byte("the whole text"), Caption: "From app ops: **attached**"}); err != nil {
		t.Fatal(err)
	}
	sent := srv.Sent()
	if len(sent) != 1 || len(sent[0].Files) != 1 || sent[0].Files[0].Name != "notice.txt" || string(sent[0].Files[0].Data) != "the whole text" ||
		sent[0].Content != `From app ops\: \*\*attached\*\*` || sent[0].Flags&4 == 0 {
		t.Errorf("sent %+v", sent)
	}
}
