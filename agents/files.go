package agents

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"image"
	"path"
	"runtime/debug"
	"strings"
	"time"

	"github.com/jarvisbot/jarvisbot/agents/attachments"
	"github.com/jarvisbot/jarvisbot/agents/llm"
	"github.com/jarvisbot/jarvisbot/store"
)

// Photos and documents (CH4): the message stored for a turn carries a
// short note of its file ("[photo: 1280×960 JPEG, kept as …]"), so later
// turns know it was sent and where it is kept; only the turn it came in
// carries the image or the document's text, read again from the inbox's
// copy when the turn is retried. A model that takes no images answers a
// photo without being called.

// fileNote keeps the turn's file under the data directory and returns the
// note the stored message carries. A file that cannot be kept is still
// answered: the note then says where it is not.
func (r *Runtime) fileNote(ctx context.Context, in Input) string {
	f := in.File
	if f == nil {
		return ""
	}
	kind, _ := attachments.KindOf(f.Photo, f.MIME, f.FileName)
	var what string
	switch {
	case kind == attachments.KindImage:
		noun := "image"
		if f.Photo {
			noun = "photo"
		}
		if cfg, format, err := image.DecodeConfig(bytes.NewReader(f.Data)); err == nil {
			what = fmt.Sprintf("%s: %d×%d %s", noun, cfg.Width, cfg.Height, strings.ToUpper(format))
		} else {
			what = noun
		}
		if f.FileName != "" {
			what += ", " + f.FileName
		}
	default:
		what = fmt.Sprintf("file: %s, %s", cmpName(f.FileName), sizeText(len(f.Data)))
	}
	name := f.FileName
	if name == "" && kind == attachments.KindImage {
		name = "photo.jpg"
	}
	rel, err := r.Files.Keep(in.Chat, name, f.Data, r.now())
	switch {
	case err != nil:
		r.log().Warn("keeping a file the owner sent; it is answered but not kept", "chat", in.Chat, "err", err)
	case rel != "":
		what += ", kept as " + rel
	}
	return "[" + what + "]"
}

func cmpName(name string) string {
	if name == "" {
		return "without a name"
	}
	return path.Base(name)
}

func sizeText(n int) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d KB", (n+1023)>>10)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}

// attach gives the turn's stored message its file, as an image or as a
// document's text, or sets the answer that takes its place: the model
// sees no images, or the file cannot be read.
func (r *Runtime) attach(ctx context.Context, st *turnState) {
	f := st.in.File
	if f == nil {
		return
	}
	at := -1
	for i := len(st.req.Messages) - 1; i >= 0; i-- {
		if m := st.req.Messages[i]; m.Role == llm.RoleUser && len(m.ToolResults) == 0 && m.Text != "" {
			at = i
			break
		}
	}
	if at < 0 {
		return
	}
	kind, ok := attachments.KindOf(f.Photo, f.MIME, f.FileName)
	what := attachments.Describe(f.Photo, f.MIME, f.FileName)
	// The readers take files from outside; a bug one of them still has
	// must cost that file, not the service and every chat's turn.
	defer func() {
		if p := recover(); p != nil {
			r.log().Error("reading a file the owner sent failed", "chat", st.in.Chat, "panic", p, "stack", string(debug.Stack()))
			st.refusal = fmt.Sprintf("I could not read that %s: its contents broke my reader. Please send it in another format.", what)
		}
	}()
	if !ok {
		st.refusal = fmt.Sprintf("I cannot read that %s: %s.", what, attachments.Accepted)
		return
	}
	var a llm.Attachment
	if kind == attachments.KindImage {
		if !st.model.Images {
			st.refusal = noImages(st.agent, st.model)
			return
		}
		img, err := attachments.PrepareImage(f.Data, attachments.MaxSide)
		if err != nil {
			st.refusal = fmt.Sprintf("I could not look at that %s: %s.", what, strings.TrimSuffix(err.Error(), "."))
			return
		}
		a = llm.Attachment{Kind: llm.AttachImage, Name: f.FileName, MIME: "image/jpeg", Data: img.JPEG}
	} else {
		doc, err := attachments.ReadDocument(kind, f.Data)
		if err != nil {
			st.refusal = fmt.Sprintf("I could not read that %s: %s.", what, strings.TrimSuffix(err.Error(), "."))
			return
		}
		text := doc.Text
		if b := doc.Bounds(); b != "" {
			text += "\n\n" + b
		}
		if strings.TrimSpace(doc.Text) == "" {
			text = "[No text could be read from this file: it may be a scan (pictures of pages) or protected.]"
		}
		a = llm.Attachment{Kind: llm.AttachDocument, Name: cmpName(f.FileName), Text: text}
		r.indexFile(ctx, st, f.FileName, f.Data, doc.Text)
	}
	m := st.req.Messages[at]
	m.Attachments = []llm.Attachment{a}
	st.req.Messages[at] = m
}

// FileIndex makes the text of the documents the owner sends searchable
// (store.DB's IndexFile): Recall then finds a file by what it says.
type FileIndex interface {
	IndexFile(ctx context.Context, chat, agent, ref, name, text string, at time.Time) error
}

// indexFile hands a document's text to the search index, once per file
// and chat: a retried turn indexes the same file again in its place. A
// failure costs the search that file, not the turn.
func (r *Runtime) indexFile(ctx context.Context, st *turnState, name string, data []byte, text string) {
	if r.FileIndex == nil || strings.TrimSpace(text) == "" {
		return
	}
	sum := sha256.Sum256(data)
	ref := st.in.Chat + "/" + hex.EncodeToString(sum[:8])
	if err := r.FileIndex.IndexFile(ctx, st.in.Chat, st.agent, ref, cmpName(name), text, r.now()); err != nil {
		r.log().Warn("indexing a document for search; it is answered, but search will not find its text", "chat", st.in.Chat, "err", err)
	}
}

// noImages is the answer to a photo for a model that takes none: which
// model, and the setting that says it does.
func noImages(agent string, m Model) string {
	if m.Delegate != nil {
		return "I cannot look at images here: this agent is answered by a coding CLI, which takes no images from a chat. Photos and images need an API model (provider anthropic or openai) that takes images."
	}
	_, model := llm.Who(m.Provider)
	key := "provider.images: true"
	if agent != "" && agent != store.DefaultAgent {
		key += " (or agents." + agent + ".provider.images for this agent)"
	}
	return fmt.Sprintf("I cannot look at images with this model (%s): it is not known to take them. If it does, set %s in the config and restart; otherwise choose a model that takes images, such as claude-sonnet-4-5 or gpt-4.1.", model, key)
}
