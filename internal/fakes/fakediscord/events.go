package fakediscord

import (
	"strings"
	"time"
)

// DisplayName is the global display name the fake gives a user.
func DisplayName(userID string) string { return "User " + userID }

func (s *Server) userJSON(userID string) map[string]any {
	if userID == s.bot.ID {
		return map[string]any{"id": s.bot.ID, "username": s.bot.Username, "bot": true}
	}
	return map[string]any{"id": userID, "username": "u" + userID, "global_name": DisplayName(userID)}
}

func (s *Server) isDM(channelID string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.dms[channelID]
	return ok
}

func now() string { return time.Now().UTC().Format(time.RFC3339Nano) }

// SendText has userID write text in channelID (a guild channel, or a DM
// channel from DMChannel): MESSAGE_CREATE goes to every bot whose intents
// ask for it, with the content blanked as Discord does for a guild message
// that does not mention the bot when the message-content intent is
// missing. It returns the message id.
func (s *Server) SendText(channelID, userID, text string) string {
	id := s.id()
	dm := s.isDM(channelID)
	intent := IntentGuildMessages
	if dm {
		intent = IntentDirectMessages
	}
	mentioned := strings.Contains(text, "<@"+s.bot.ID+">")
	s.dispatch("MESSAGE_CREATE", intent, func(intents int) any {
		content := text
		if !dm && !mentioned && userID != s.bot.ID && intents&IntentMessageContent == 0 {
			content = ""
		}
		m := map[string]any{
			"id": id, "channel_id": channelID, "author": s.userJSON(userID), "content": content,
			"timestamp": now(), "edited_timestamp": nil, "tts": false, "mention_everyone": false,
			"mentions": []any{}, "mention_roles": []any{}, "attachments": []any{}, "embeds": []any{},
			"components": []any{}, "pinned": false, "type": 0, "flags": 0,
		}
		if !dm {
			m["guild_id"] = s.guild
			m["member"] = map[string]any{"roles": []any{}, "joined_at": now(), "deaf": false, "mute": false, "flags": 0}
		}
		return m
	})
	return id
}

// Click has userID press the button customID under the bot's message
// messageID: INTERACTION_CREATE of type 3 (message component). The button
// must be on the message as it is now. It returns the interaction id.
func (s *Server) Click(channelID, userID, messageID, customID string) string {
	s.mu.Lock()
	m, ok := s.messages[messageID]
	var msg map[string]any
	found := false
	if ok {
		for _, row := range m.Rows {
			for _, b := range row {
				found = found || b.CustomID == customID
			}
		}
		msg = s.messageJSONLocked(m)
	}
	s.mu.Unlock()
	switch {
	case !ok || m.ChannelID != channelID:
		s.t.Errorf("fakediscord: Click on message %s in channel %s, which the bot did not send", messageID, channelID)
		return ""
	case !found:
		s.t.Errorf("fakediscord: Click on %q, which message %s does not show", customID, messageID)
		return ""
	}
	return s.interact(channelID, userID, messageID, 3, msg, map[string]any{"custom_id": customID, "component_type": 2})
}

// SlashCommand has userID invoke the registered slash command name in
// channelID, with text as its string option when not empty:
// INTERACTION_CREATE of type 2. It returns the interaction id.
func (s *Server) SlashCommand(channelID, userID, name, text string) string {
	s.mu.Lock()
	var cmd *Command
	for i := range s.commands {
		if s.commands[i].Name == name {
			cmd = &s.commands[i]
		}
	}
	var data map[string]any
	if cmd != nil {
		data = map[string]any{"id": cmd.ID, "name": cmd.Name, "type": 1}
		if text != "" {
			for _, o := range cmd.Options {
				if o.Type == 3 {
					data["options"] = []any{map[string]any{"name": o.Name, "type": 3, "value": text}}
					break
				}
			}
		}
	}
	s.mu.Unlock()
	switch {
	case cmd == nil:
		s.t.Errorf("fakediscord: slash command /%s is not registered", name)
		return ""
	case text != "" && data["options"] == nil:
		s.t.Errorf("fakediscord: slash command /%s takes no text", name)
		return ""
	}
	return s.interact(channelID, userID, "", 2, nil, data)
}

func (s *Server) interact(channelID, userID, messageID string, typ int, msg, data map[string]any) string {
	s.mu.Lock()
	in := &interaction{id: s.idLocked(), token: "itoken-" + s.idLocked(), messageID: messageID, channelID: channelID}
	s.interactions[in.id] = in
	_, dm := s.dms[channelID]
	s.mu.Unlock()
	s.dispatch("INTERACTION_CREATE", 0, func(int) any {
		p := map[string]any{
			"id": in.id, "application_id": s.bot.ID, "type": typ, "token": in.token, "version": 1,
			"channel_id": channelID, "data": data, "app_permissions": "0", "locale": "en-US",
		}
		if msg != nil {
			p["message"] = msg
		}
		if dm {
			p["user"] = s.userJSON(userID)
			p["context"] = 1
		} else {
			p["guild_id"] = s.guild
			p["guild_locale"] = "en-US"
			p["member"] = map[string]any{"user": s.userJSON(userID), "roles": []any{}, "joined_at": now(), "permissions": "0", "flags": 0}
			p["context"] = 0
		}
		return p
	})
	return in.id
}

func (s *Server) messageJSONLocked(m *Message) map[string]any {
	rows := []any{}
	for _, r := range m.Rows {
		var bs []any
		for _, b := range r {
			bs = append(bs, map[string]any{"type": 2, "style": b.Style, "label": b.Label, "custom_id": b.CustomID})
		}
		rows = append(rows, map[string]any{"type": 1, "components": bs})
	}
	j := map[string]any{
		"id": m.ID, "channel_id": m.ChannelID, "author": s.userJSON(s.bot.ID), "content": m.Content,
		"timestamp": now(), "tts": false, "mention_everyone": false, "mentions": []any{}, "mention_roles": []any{},
		"attachments": []any{}, "embeds": []any{}, "components": rows, "pinned": false, "type": 0, "flags": 0,
	}
	if _, dm := s.dms[m.ChannelID]; !dm {
		j["guild_id"] = s.guild
	}
	return j
}
