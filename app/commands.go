package app

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/channels"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/store"
)

// commands are the slash commands the desk answers from the service: the
// facts' and /dashboard.
func (s *Service) commands() map[string]func(ctx context.Context, chat string) string {
	cmds := s.facts().Commands()
	cmds["dashboard"] = func(ctx context.Context, _ string) string {
		link := s.DashboardLink.Load()
		if link == nil {
			if WebBase(s.Config) == "" {
				return "The dashboard is off (web.listen: off). Set web.listen (or JARVIS_WEB_LISTEN) and restart jarvisbot."
			}
			return "The dashboard is not running in this process: it starts with jarvisbot serve."
		}
		url, ttl, err := (*link)(ctx)
		if err != nil {
			s.log.Error("making a dashboard link", "err", err)
			return "I could not make a sign-in link: " + err.Error()
		}
		return fmt.Sprintf("Open the dashboard: %s\nThe link works once, within %d minutes; it becomes a session in that browser.", url, int(ttl/time.Minute))
	}
	cmds["usage"] = func(ctx context.Context, _ string) string {
		sum, err := s.Installation().UsageSummary(ctx)
		if err != nil {
			s.log.Error("reading usage for /usage", "err", err)
			return "I could not read the usage record: " + err.Error()
		}
		text := UsageText(sum)
		rows, err := s.Installation().Budgets(ctx)
		if err != nil {
			s.log.Warn("reading the budgets for /usage", "err", err)
		} else if b := BudgetsText(rows); b != "" {
			text += "\n" + b
		}
		return text
	}
	s.conversationCommands(cmds)
	return cmds
}

// ListedSkill is one skill with its switch, kind and source, as /skills,
// the MCP surface's skill list and export show it.
type ListedSkill struct {
	Name, Description string
	Enabled           bool
	// Off says why it is off: skills.WhySwitchedOff (the owner's switch)
	// or skills.WhyNotInstalled; "" when it is on.
	Off      string
	Kind     string // what it does: instructions, a workflow, …
	Source   string // where it comes from: shipped, the owner's, a plugin's
	Schedule string // its cron spec, "" for none
}

// SkillList is every skill with its switch, kind and source, as /skills.
func (s *Service) SkillList(ctx context.Context) ([]ListedSkill, error) {
	all, _, err := s.Installation().gatherSkills(ctx, store.DefaultAgent)
	if err != nil {
		return nil, err
	}
	out := make([]ListedSkill, 0, len(all))
	for _, e := range all {
		out = append(out, ListedSkill{Name: e.Skill.Name, Description: e.Skill.Description, Enabled: e.On, Off: e.Why, Kind: string(e.Skill.Does), Source: string(e.Source), Schedule: e.Skill.Schedule})
	}
	return out, nil
}

// Notice is an app's notice to the owner as the chat gets it: marked with
// the app's name and inert (visible.Inert) in every part. The MCP surface
// makes it from what the app sent.
type Notice struct {
	// Text is the message: the whole notice when it is short enough for
	// one message, else its start and how much is cut, for a chat that
	// takes no files.
	Text string
	// File holds the whole notice when it is longer, to send as one
	// document named FileName with Caption; nil otherwise.
	File     []byte
	FileName string
	Caption  string
}

// NotifyOwner sends an app's notice to chat on its channel, as written
// (X5): the file where the notice has one and the channel takes files,
// else the text. The app hears of a failure and may send it again; the
// desk's kept replies would send it again as the model's Markdown.
func (s *Session) NotifyOwner(ctx context.Context, chat string, n Notice) error {
	name, _, _ := strings.Cut(chat, ":")
	var ch channels.Channel
	for _, c := range s.Channels {
		if c.Name() == name {
			ch = c
		}
	}
	if ch == nil {
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "the owner's chat %s has no channel running in this jarvisbot; try again when serve runs it", chat)
	}
	if ds, ok := ch.(channels.DocumentSender); ok && n.File != nil {
		if _, err := ds.SendDocument(ctx, channels.Document{Chat: chat, Name: n.FileName, Data: n.File, Caption: n.Caption}); err != nil {
			return fmt.Errorf("sending the notice to the owner's chat as a file: %w", err)
		}
		return nil
	}
	if _, err := ch.Send(ctx, channels.Outgoing{Chat: chat, Text: n.Text, Plain: true}); err != nil {
		return fmt.Errorf("sending the notice to the owner's chat: %w", err)
	}
	return nil
}

// now is the app's clock.
func (a *Env) Now() time.Time {
	if a.Clock != nil {
		return a.Clock.Now()
	}
	return time.Now()
}

// WebBase is the dashboard's address as configured: web.url, else its
// listen address; "" when it is off.
func WebBase(cfg config.Config) string {
	if cfg.Web.URL != "" {
		return cfg.Web.URL
	}
	addr := cfg.Web.Addr()
	if addr == "" {
		return ""
	}
	scheme := "http"
	if cfg.Web.TLSCert != "" {
		scheme = "https"
	}
	return scheme + "://" + addr
}

// DashboardURL is the dashboard's address for links in chat messages:
// web.url, the address the owner opens, only; a listen address is often
// loopback, which a phone cannot open.
func DashboardURL(cfg config.Config) string {
	if cfg.Web.Addr() == "" {
		return ""
	}
	return cfg.Web.URL
}
