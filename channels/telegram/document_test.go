package telegram

import (
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/channels"
)

// TestPlainTextIsShownAsWrittenX5: a Plain message renders no Markdown or
// tags, draws no link preview, and when split, every part starts with its
// first line (who it is from).
func TestPlainTextIsShownAsWrittenX5(t *testing.T) {
	t.Parallel()
	s, b := newBot(t, Options{})
	body := strings.Repeat("**not bold** <b>no tag</b> & [x](y) ", 150) // ~5,000 characters
	if _, err := b.Send(t.Context(), channels.Outgoing{Chat: "telegram:5", Text: "From app ops:\n" + body, Plain: true}); err != nil {
		t.Fatal(err)
	}
	got := s.Sent()
	if len(got) < 2 {
		t.Fatalf("sent %d parts, want it split", len(got))
	}
	var all strings.Builder
	for i, m := range got {
		if !strings.HasPrefix(m.Text, "From app ops:\n") || !m.NoPreview {
			t.Errorf("part %d: preview off %v, starts %.30q", i, m.NoPreview, m.Text)
		}
		if strings.Contains(m.Text, "<b>") || !strings.Contains(m.Text, "&lt;b&gt;no tag&lt;/b&gt;") || !strings.Contains(m.Text, "**not bold**") {
			t.Errorf("part %d renders markup: %.120q", i, m.Text)
		}
		all.WriteString(strings.TrimPrefix(m.Text, "From app ops:\n"))
	}
	if n := strings.Count(all.String(), "&lt;b&gt;no tag"); n != 150 {
		t.Errorf("the parts hold %d of the 150 pieces", n)
	}
}

// TestSendDocumentX5: a file goes by sendDocument with its name and a
// plain caption (no parse mode).
func TestSendDocumentX5(t *testing.T) {
	t.Parallel()
	s, b := newBot(t, Options{})
	id, err := b.SendDocument(t.Context(), channels.Document{Chat: "telegram:5", Name: "notice.txt", Data: []byte("the whole text"), Caption: "From app ops: <b>attached</b>"})
	if err != nil {
		t.Fatal(err)
	}
	got := s.Sent()
	if len(got) != 1 || got[0].Method != "sendDocument" || string(got[0].Document) != "the whole text" || got[0].FileName != "notice.txt" ||
		got[0].Caption != "From app ops: <b>attached</b>" || got[0].ParseMode != "" || itoa(got[0].MessageID) != id {
		t.Errorf("sent %+v", got)
	}
	if _, err := b.SendDocument(t.Context(), channels.Document{Chat: "telegram:5", Name: "empty.txt"}); err == nil {
		t.Error("an empty file was sent")
	}
}
