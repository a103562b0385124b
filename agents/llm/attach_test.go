package llm

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
)

// TestAttachmentsOnTheWireCH4: an image reaches each API as its own image
// part (Anthropic: an image block with a base64 source; OpenAI: an
// image_url part with a data URL), a document's text as a document block
// or a text part with its name, and the caption as the message's text.
func TestAttachmentsOnTheWireCH4(t *testing.T) {
	jpeg := []byte("\xff\xd8\xff\xe0 not really a jpeg")
	for _, p := range []string{"anthropic", "openai"} {
		t.Run(p, func(t *testing.T) {
			fake := fakellm.New(t)
			fake.Push(fakellm.Step{Text: "a fern"})
			req := Request{MaxTokens: 100, Messages: []Message{
				{Role: RoleUser, Text: "earlier"},
				{Role: RoleAssistant, Text: "yes"},
				{Role: RoleUser, Text: "what plant is this?", Attachments: []Attachment{
					{Kind: AttachImage, MIME: "image/jpeg", Data: jpeg},
					{Kind: AttachDocument, Name: "notes.txt", Text: "watered on Monday"},
				}},
			}}
			if _, err := wireProvider(t, p, fake).Complete(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			got := fake.Requests()[0].Messages
			last := got[len(got)-1]
			if len(last.Images) != 1 || last.Images[0].MediaType != "image/jpeg" || !bytes.Equal(last.Images[0].Data, jpeg) {
				t.Fatalf("the last message carries images %+v, want the JPEG", last.Images)
			}
			if !strings.Contains(last.Text, "what plant is this?") {
				t.Errorf("the caption is missing from the text %q", last.Text)
			}
			doc := last.Text
			if p == "anthropic" {
				if len(last.Documents) != 1 || last.Documents[0].Name != "notes.txt" {
					t.Fatalf("documents %+v, want notes.txt", last.Documents)
				}
				doc = last.Documents[0].Text
			} else if !strings.Contains(doc, `name="notes.txt"`) {
				t.Errorf("the file's name is missing from %q", doc)
			}
			if !strings.Contains(doc, "watered on Monday") {
				t.Errorf("the document's text is missing from %q", doc)
			}
			if len(got[0].Images) != 0 {
				t.Errorf("an earlier message carries images")
			}
		})
	}
}

func TestSeesImagesByModelCH4(t *testing.T) {
	for _, tc := range []struct {
		provider, model string
		want            bool
	}{
		{"anthropic", "claude-sonnet-4-5", true},
		{"openai", "gpt-4o-mini", true},
		{"openai", "gpt-4.1", true},
		{"openai", "gpt-5", true},
		{"openai", "openai/gpt-4o", true},
		{"openai", "gpt-3.5-turbo", false},
		{"openai", "llama3.1", false},
		{"claude-code", "", false},
	} {
		if got := SeesImages(tc.provider, tc.model); got != tc.want {
			t.Errorf("SeesImages(%s, %s) = %v, want %v", tc.provider, tc.model, got, tc.want)
		}
	}
}

// TestChoiceSeesImagesCH4: provider.images decides when set; unset, the
// model's family does.
func TestChoiceSeesImagesCH4(t *testing.T) {
	yes, no := true, false
	env := Env{Getenv: func(string) string { return "" }, Secret: func(context.Context, string) string { return "key" }}
	for _, tc := range []struct {
		s    Settings
		want bool
	}{
		{Settings{Name: "openai", Model: "llava", BaseURL: "http://localhost:11434/v1"}, false},
		{Settings{Name: "openai", Model: "llava", BaseURL: "http://localhost:11434/v1", Images: &yes}, true},
		{Settings{Name: "anthropic", Model: "claude-sonnet-4-5"}, true},
		{Settings{Name: "anthropic", Model: "claude-sonnet-4-5", Images: &no}, false},
	} {
		ch, err := Choose(context.Background(), tc.s, env)
		if err != nil {
			t.Fatal(err)
		}
		if ch.Images != tc.want {
			t.Errorf("%s %s (images %v): Images = %v, want %v", tc.s.Name, tc.s.Model, tc.s.Images, ch.Images, tc.want)
		}
	}
}
