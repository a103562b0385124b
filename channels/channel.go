// Package channels is how the owner meets jarvisbot (CH1-CH3): one small
// interface that the Telegram, Discord and console adapters implement,
// each in its own package. Chats and users are named "PLATFORM:ID"
// ("telegram:123456", "discord:987654321") everywhere else in jarvisbot.
package channels

import (
	"context"
	"time"
)

// Message is one incoming message.
type Message struct {
	Chat string // the conversation, "telegram:123"
	User string // the sender, "telegram:456"
	Name string // the sender's display name, for messages to the owner
	Text string // for a voice note, its caption if any
	ID   string // the platform's message id
	// Delivery names this delivery of the message: an id the platform
	// gives it that stays the same when it delivers it again (Telegram's
	// update id, Discord's message id), "" on a channel that never
	// delivers twice (the console). The dispatcher acts on each once,
	// however often and on whichever replica it arrives (ST2).
	Delivery string
	// Audio is a voice note or an audio file the sender sent (V1), nil
	// for a text message. The dispatcher fetches it from an owner only.
	Audio *Audio
	// File is a photo, image or document the sender sent (CH4), nil for
	// none; Text is then its caption. A message with audio has none.
	File *File
}

// File is a photo or a file attachment as the platform announced it;
// Fetch downloads it from the platform's own file host.
type File struct {
	// Photo is true for a photo the app sent as such (compressed by the
	// platform, no name), false for a file.
	Photo         bool
	MIME          string // as the platform says: "image/jpeg", "application/pdf"…; "" if unknown
	Size          int64  // in bytes, as the platform says; 0 if unknown
	FileName      string // "" for a photo
	Width, Height int    // an image's, as the platform says; 0 if unknown
	// Fetch downloads the file, refusing (with an EINVALID error that
	// says the bound) one larger than max bytes, whatever Size said.
	Fetch func(ctx context.Context, max int64) ([]byte, error)
}

// Audio is a voice note or audio attachment as the platform announced it;
// Fetch downloads it.
type Audio struct {
	// Voice is true for a voice note (recorded in the app), false for an
	// audio file sent as such.
	Voice    bool
	MIME     string        // as the platform says: "audio/ogg", "audio/mpeg"…; "" if unknown
	Duration time.Duration // as the platform says; 0 if unknown
	Size     int64         // in bytes, as the platform says; 0 if unknown
	FileName string        // "" for a voice note
	// Fetch downloads the audio, refusing (with an EINVALID error that
	// says the bound) one larger than max bytes, whatever Size said.
	Fetch func(ctx context.Context, max int64) ([]byte, error)
}

// Voice is a voice note to send (V1): OGG/Opus bytes.
type Voice struct {
	Chat     string
	OGG      []byte
	Duration time.Duration // 0 if unknown
	Caption  string        // short; "" for none
	ReplyTo  string        // the platform id of the message it answers; "" for none
}

// VoiceSender sends voice notes, on platforms that have them (Telegram's
// sendVoice; on Discord an OGG/Opus attachment).
type VoiceSender interface {
	SendVoice(ctx context.Context, v Voice) (messageID string, err error)
}

// Button is one button under a message. Data is opaque to the platform:
// at most 64 bytes (Telegram's limit for callback data), never a secret.
type Button struct {
	Label string
	Data  string
	// Keys are words a channel without buttons (the console) takes for a
	// press besides the button's number: "y", "yes".
	Keys []string
}

// Press is a tap on a button.
type Press struct {
	Chat      string
	User      string
	MessageID string // the message the button was under
	Data      string
	// Delivery names this delivery of the press, as Message.Delivery
	// does (Telegram's update id, Discord's interaction id).
	Delivery string
	// Answer acknowledges the tap with a short notice shown to the one
	// who pressed (Telegram answerCallbackQuery, Discord ephemeral reply).
	Answer func(ctx context.Context, notice string) error
}

// Outgoing is a message to send.
type Outgoing struct {
	Chat    string
	Text    string     // Markdown as the model writes it; the adapter converts and splits it
	Buttons [][]Button // rows of buttons, under the last part
	// ReplyTo is the platform id of the message this answers; the first
	// part is sent as a reply to it where the platform has replies.
	ReplyTo string
	// Plain sends Text as written, for text from outside (an app's
	// notice, X5): no Markdown or markup is rendered and no link preview
	// is drawn. The caller makes links and controls inert beforehand.
	Plain bool
}

// Document is a file to send, with a plain-text caption.
type Document struct {
	Chat    string
	Name    string // the file's name as the chat shows it: "notice.txt"
	Data    []byte
	Caption string // plain text, shown as written (no markup); cut to the platform's limit
}

// DocumentSender sends a file to a chat, on platforms that take files
// (Telegram's sendDocument, a Discord attachment).
type DocumentSender interface {
	SendDocument(ctx context.Context, d Document) (messageID string, err error)
}

// Handler receives what a channel hears. Calls may be concurrent; the
// handler keeps its own per-chat order.
type Handler interface {
	HandleMessage(ctx context.Context, m Message)
	HandlePress(ctx context.Context, p Press)
}

// Command is a slash command registered with the platform.
type Command struct {
	Name        string // without the slash: "help"
	Description string
}

// Channel is one platform.
type Channel interface {
	// Name is the platform prefix of its chats: "telegram", "discord", "console".
	Name() string
	// Run receives until ctx ends, passing messages and presses to h.
	Run(ctx context.Context, h Handler) error
	// Send delivers a message, split at the platform's limit on paragraph
	// or code-block boundaries; it returns the id of the last part, which
	// carries the buttons.
	Send(ctx context.Context, m Outgoing) (messageID string, err error)
	// Edit replaces a sent message's text and buttons (nil removes them).
	Edit(ctx context.Context, chat, messageID, text string, buttons [][]Button) error
}

// Typer shows "typing…" while a turn runs, on platforms that have it.
type Typer interface {
	Typing(ctx context.Context, chat string) error
}

// Commander registers slash commands with the platform.
type Commander interface {
	SetCommands(ctx context.Context, cmds []Command) error
}

// Readier tells when a running channel can hear the owner: Telegram's
// first long poll is out, Discord's gateway session is ready. The channel
// closes the channel once, the first time; serve waits for it before it
// starts work that can wait, such as MCP servers.
type Readier interface {
	Ready() <-chan struct{}
}

// Closed reports whether ch is closed; a nil ch never is. The adapters ask
// it of a lease's Lost channel without waiting.
func Closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
