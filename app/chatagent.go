package app

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
)

// Which agent answers a chat (A4): the one the owner switched it to with
// /agent, else the one the config binds it to (agents.NAME.chats: the
// chat itself, then its platform), else the session's (serve --agent,
// the default agent).

// ChatAgent is the agent that answers chat now.
func (s *Service) ChatAgent(ctx context.Context, chat string) (string, error) {
	switched, err := s.DB.ChatAgent(ctx, chat)
	if err != nil {
		return "", err
	}
	if switched != "" {
		return switched, nil
	}
	if bound := s.Config.AgentFor(chat); bound != "" {
		return bound, nil
	}
	return s.sessionAgent(), nil
}

// sessionAgent answers the chats nothing binds.
func (s *Service) sessionAgent() string {
	if s.agent != "" {
		return s.agent
	}
	return store.DefaultAgent
}

// SwitchChatAgent switches chat to agent (/agent NAME): its messages go to
// that agent from now on, across restarts. The session's or the config's
// agent for the chat takes the switch back.
func (s *Service) SwitchChatAgent(ctx context.Context, chat, agent string) error {
	if _, err := s.DB.Agent(ctx, agent); err != nil {
		if jarvisbot.ErrorCode(err) == jarvisbot.ENOTFOUND {
			return jarvisbot.Errorf(jarvisbot.ENOTFOUND, "there is no agent %q: send /agent to see them, or add it with jarvisbot agents add %s", agent, agent)
		}
		return err
	}
	before := s.Config.AgentFor(chat)
	if before == "" {
		before = s.sessionAgent()
	}
	if agent == before {
		agent = "" // no switch is needed to reach the chat's own agent
	}
	return s.DB.SetChatAgent(ctx, chat, agent, s.env.Now())
}

// agentCommand is the chat's /agent: without a name it says who answers
// and lists the others; with one it switches the chat.
func (s *Service) agentCommand(ctx context.Context, chat, arg string) string {
	if name := strings.TrimSpace(arg); name != "" {
		if err := s.SwitchChatAgent(ctx, chat, name); err != nil {
			return "I could not switch: " + err.Error()
		}
		return fmt.Sprintf("Agent %s answers this chat from now on; its own conversation here goes on. Send /agent to see the others.", name)
	}
	now, err := s.ChatAgent(ctx, chat)
	if err != nil {
		return "I could not read which agent answers here: " + err.Error()
	}
	list, err := s.DB.Agents(ctx)
	if err != nil {
		return "I could not list the agents: " + err.Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Agent %s answers this chat.", now)
	var others []string
	for _, a := range list {
		if a.Name != now {
			others = append(others, fmt.Sprintf("%s — %s", a.Name, a.Description))
		}
	}
	if len(others) > 0 {
		b.WriteString("\nThe others:\n" + strings.Join(others, "\n"))
		b.WriteString("\n/agent NAME switches this chat; @NAME at the start of a message sends that one message to NAME.")
	} else {
		b.WriteString(" It is the only one: add others with jarvisbot agents add NAME --describe \"…\".")
	}
	return b.String()
}

// messageAgent is MessageAgent for the desk: marked says the reply names
// who answered, for an agent other than the one the config or the session
// gives the chat (after @NAME or /agent NAME).
func (s *Service) messageAgent(ctx context.Context, chat, text string) (agent, rest string, marked bool, err error) {
	agent, rest, _, err = s.MessageAgent(ctx, chat, text)
	if err != nil {
		return "", text, false, err
	}
	base := s.Config.AgentFor(chat)
	if base == "" {
		base = s.sessionAgent()
	}
	return agent, rest, agent != base, nil
}

// MessageAgent is the agent a message goes to and its text: @NAME at its
// start sends that one message to agent NAME (once is true) when NAME is
// an agent; anything else goes to the chat's agent.
func (s *Service) MessageAgent(ctx context.Context, chat, text string) (agent, rest string, once bool, err error) {
	if name, body, ok := strings.Cut(text, " "); ok && strings.HasPrefix(name, "@") && len(name) > 1 {
		name = strings.TrimPrefix(name, "@")
		if _, aerr := s.DB.Agent(ctx, name); aerr == nil {
			return name, strings.TrimSpace(body), true, nil
		} else if jarvisbot.ErrorCode(aerr) != jarvisbot.ENOTFOUND {
			return "", text, false, aerr
		}
	}
	agent, err = s.ChatAgent(ctx, chat)
	return agent, text, false, err
}

// AgentChat is a chat an agent answers, and why.
type AgentChat struct {
	Chat string
	// Switched: the owner switched the chat to the agent (/agent, the
	// dashboard); else the config binds it.
	Switched bool
}

// AgentChats are the chats an agent answers by the config's bindings and
// the owner's switches, by chat; a chat the config binds to it and that
// was switched to another agent is left out.
func (in *Installation) AgentChats(ctx context.Context, agent string) ([]AgentChat, error) {
	switches, err := in.DB.ChatAgentSwitches(ctx)
	if err != nil {
		return nil, err
	}
	var out []AgentChat
	if ag, ok := in.Config.Agents[agent]; ok {
		for _, c := range ag.Chats {
			if other, ok := switches[c]; !ok || other == agent {
				out = append(out, AgentChat{Chat: c, Switched: ok})
			}
		}
	}
	for chat, a := range switches {
		if a == agent && !slices.ContainsFunc(out, func(c AgentChat) bool { return c.Chat == chat }) {
			out = append(out, AgentChat{Chat: chat, Switched: true})
		}
	}
	slices.SortFunc(out, func(a, b AgentChat) int { return strings.Compare(a.Chat, b.Chat) })
	return out, nil
}

// SwitchChat switches a chat to agent from the dashboard, as /agent NAME
// does in the chat; an empty agent takes the switch back.
func (in *Installation) SwitchChat(ctx context.Context, chat, agent string) error {
	platform, id, _ := strings.Cut(chat, ":")
	if (platform != "telegram" && platform != "discord") || id == "" || strings.ContainsAny(id, " \t") {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "%q is not a chat: write telegram:CHAT_ID or discord:CHANNEL_ID", chat)
	}
	if agent == "" {
		return in.DB.SetChatAgent(ctx, chat, "", in.Env.Now())
	}
	if _, err := in.DB.Agent(ctx, agent); err != nil {
		return err
	}
	return in.DB.SetChatAgent(ctx, chat, agent, in.Env.Now())
}
