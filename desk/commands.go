package desk

import (
	"context"
	"fmt"
	"strings"

	"github.com/jarvisbot/jarvisbot/channels"
)

// Slash commands: /help and /cancel are the desk's own; the others are
// answered by the service (Options.Commands, from its Facts). Text that
// starts with a slash and names no command goes to the agent.

// The commands every channel registers.
var Commands = []channels.Command{
	{Name: "help", Description: "what I can do"},
	{Name: "skills", Description: "the skills and whether they are on"},
	{Name: "plugins", Description: "installed plugins, and what needs attention"},
	{Name: "mcp", Description: "MCP servers and whether they answer"},
	{Name: "agents", Description: "the agents"},
	{Name: "agent", Description: "which agent answers here; /agent NAME switches"},
	{Name: "activity", Description: "what the agents did lately"},
	{Name: "usage", Description: "what the model calls cost today and this month"},
	{Name: "schedule", Description: "scheduled skills: next and last run"},
	{Name: "dashboard", Description: "a one-time sign-in link to the dashboard"},
	{Name: "new", Description: "start a new conversation here"},
	{Name: "history", Description: "how much of this conversation I see"},
	{Name: "cancel", Description: "stop the answer in progress"},
	{Name: "pause", Description: "pause every agent until /resume"},
	{Name: "resume", Description: "go on after a pause, whoever set it"},
}

// isCommand reports whether text is a slash command the desk answers;
// other text that starts with a slash goes to the agent.
func (d *Desk) isCommand(text string) bool {
	name := commandName(text)
	_, ok := d.opt.Commands[name]
	_, withArg := d.opt.ArgCommands[name]
	return ok || withArg || name == "help" || name == "cancel"
}

func commandName(text string) string {
	name, _, _ := strings.Cut(strings.TrimPrefix(text, "/"), " ")
	name, _, _ = strings.Cut(name, "@") // Telegram's /help@botname
	return name
}

// command answers a slash command isCommand knows.
func (d *Desk) command(ctx context.Context, m channels.Message, text string) {
	name := commandName(text)
	switch name {
	case "help":
		var b strings.Builder
		b.WriteString("Write to me as you would to an assistant. Commands:\n")
		for _, c := range Commands {
			fmt.Fprintf(&b, "/%s — %s\n", c.Name, c.Description)
		}
		d.send(ctx, channels.Outgoing{Chat: m.Chat, Text: b.String()})
		return
	case "cancel":
		d.cancel(ctx, m)
		return
	}
	if f, ok := d.opt.Commands[name]; ok {
		d.send(ctx, channels.Outgoing{Chat: m.Chat, Text: f(ctx, m.Chat)})
		return
	}
	if f, ok := d.opt.ArgCommands[name]; ok {
		_, arg, _ := strings.Cut(strings.TrimSpace(text), " ")
		d.send(ctx, channels.Outgoing{Chat: m.Chat, Text: f(ctx, m.Chat, strings.TrimSpace(arg))})
	}
}

// cancel answers /cancel: it stops the chat's turn, here or on the
// replica running it.
func (d *Desk) cancel(ctx context.Context, m channels.Message) {
	if d.StopTurn(m.Chat) {
		return
	}
	if d.opt.Queue != nil {
		// Replicas: the chat's turn may run on another one, which
		// says "Stopped." when it stops it.
		sent, err := d.opt.Queue.Cancel(ctx, m.Chat)
		if err != nil {
			d.log.Warn("passing /cancel to the other replicas", "chat", m.Chat, "err", err)
			d.send(ctx, channels.Outgoing{Chat: m.Chat, Text: "I could not reach the replica answering this chat to stop its turn. Try /cancel again in a moment."})
			return
		}
		if sent {
			return
		}
	}
	d.send(ctx, channels.Outgoing{Chat: m.Chat, Text: "Nothing is running."})
}
