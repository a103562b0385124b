package fakediscord

import (
	"cmp"
	"slices"
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
	return s.Post(channelID, userID, UserMessage{Text: text})
}

// SendVoice has userID send a voice message (recorded in the app) of
// seconds in channelID: no text, the flag IS_VOICE_MESSAGE, and one
// audio/ogg attachment with duration_secs and a waveform, whose bytes the
// fake serves at the attachment's URL. It returns the message id.
func (s *Server) SendVoice(channelID, userID string, ogg []byte, seconds float64) string {
	return s.Post(channelID, userID, UserMessage{Voice: true, Attachments: []Attachment{
		{FileName: "voice-message.ogg", ContentType: "audio/ogg", Data: data(ogg), Seconds: seconds},
	}})
}

// SendAudio has userID send a file as an attachment in channelID, with
// text as the message's content ("" for none; a mention of the bot
// addresses it in a guild channel). It returns the message id.
func (s *Server) SendAudio(channelID, userID, text, fileName, contentType string, body []byte) string {
	return s.Post(channelID, userID, UserMessage{Text: text, Attachments: []Attachment{
		{FileName: fileName, ContentType: contentType, Data: data(body)},
	}})
}

// data copies what a test hands the fake, so the test may reuse its slice.
func data(b []byte) []byte { return append([]byte{}, b...) }

// UserMessage is what a user writes, for Post.
type UserMessage struct {
	Text string
	// ReplyTo is the id of the message this answers (type 19, a reply);
	// a reply to the bot's message mentions the bot, as Discord's
	// default "ping on reply" does.
	ReplyTo string
	// Voice marks a voice message (flag IS_VOICE_MESSAGE); its one
	// attachment is the recording.
	Voice       bool
	Attachments []Attachment
}

// Attachment is a file a user sends. The fake serves Data at the URL it
// announces, which is on Discord's CDN host as Discord's are (or on the
// fake's own address: OwnAddressLinks), with a signature in the query.
type Attachment struct {
	FileName    string
	ContentType string // "" sends none
	Data        []byte
	Seconds     float64 // duration_secs, which Discord gives for voice messages
}

// IsVoiceMessage is Discord's message flag for a voice message.
const IsVoiceMessage = 1 << 13

// Post has userID write m in channelID (a guild channel, or a DM channel
// from DMChannel): MESSAGE_CREATE goes to every bot whose intents ask for
// it. When the message-content intent is missing, a guild message that
// does not mention the bot arrives with its content and attachments
// blanked, as on Discord. It returns the message id.
func (s *Server) Post(channelID, userID string, m UserMessage) string {
	id := s.id()
	dm := s.isDM(channelID)
	s.mu.Lock()
	guild := s.guildOfLocked(channelID)
	s.mu.Unlock()
	intent := IntentGuildMessages
	if dm {
		intent = IntentDirectMessages
	}
	mentioned := strings.Contains(m.Text, "<@"+s.bot.ID+">")
	var reference, referenced map[string]any
	if m.ReplyTo != "" {
		reference = map[string]any{"message_id": m.ReplyTo, "channel_id": channelID}
		if !dm {
			reference["guild_id"] = guild
		}
		s.mu.Lock()
		if to, ok := s.messages[m.ReplyTo]; ok && to.ChannelID == channelID {
			referenced = s.messageJSONLocked(to)
			mentioned = true
		}
		s.mu.Unlock()
	}
	attachments := make([]any, 0, len(m.Attachments))
	for _, a := range m.Attachments {
		attachments = append(attachments, s.attach(id, channelID, a))
	}
	flags := 0
	if m.Voice {
		flags |= IsVoiceMessage
	}
	s.dispatch("MESSAGE_CREATE", guild, intent, func(intents int) any {
		content, files := m.Text, attachments
		if !dm && !mentioned && userID != s.bot.ID && intents&IntentMessageContent == 0 {
			content, files = "", []any{}
		}
		mentions := []any{}
		if mentioned {
			mentions = append(mentions, s.userJSON(s.bot.ID))
		}
		j := map[string]any{
			"id": id, "channel_id": channelID, "author": s.userJSON(userID), "content": content,
			"timestamp": now(), "edited_timestamp": nil, "tts": false, "mention_everyone": false,
			"mentions": mentions, "mention_roles": []any{}, "attachments": files, "embeds": []any{},
			"components": []any{}, "pinned": false, "type": 0, "flags": flags,
		}
		if reference != nil {
			j["type"] = 19
			j["message_reference"] = reference
			j["referenced_message"] = referenced
		}
		if !dm {
			j["guild_id"] = guild
			j["member"] = map[string]any{"roles": []any{}, "joined_at": now(), "deaf": false, "mute": false, "flags": 0}
		}
		return j
	})
	return id
}

// ReplaceAttachment changes the bytes served for the attachments of
// message messageID, leaving what the event said of them (their size)
// as it was: a server whose file is not what it announced.
func (s *Server) ReplaceAttachment(messageID string, body []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, a := range s.attachments {
		if a.messageID == messageID {
			a.data = data(body)
			n++
		}
	}
	if n == 0 {
		s.t.Errorf("fakediscord: ReplaceAttachment: message %s has no attachment", messageID)
	}
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
	guild := s.guildOfLocked(channelID)
	s.mu.Unlock()
	s.dispatch("INTERACTION_CREATE", guild, 0, func(int) any {
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
			p["guild_id"] = guild
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
	var mine []*attachment
	for _, a := range s.attachments {
		if a.messageID == m.ID {
			mine = append(mine, a)
		}
	}
	slices.SortFunc(mine, func(a, b *attachment) int { return cmp.Compare(a.id, b.id) }) // ids grow, all of one length
	files := []any{}
	for _, a := range mine {
		files = append(files, s.attachmentJSONLocked(a))
	}
	j := map[string]any{
		"id": m.ID, "channel_id": m.ChannelID, "author": s.userJSON(s.bot.ID), "content": m.Content,
		"timestamp": now(), "tts": false, "mention_everyone": false, "mentions": []any{}, "mention_roles": []any{},
		"attachments": files, "embeds": []any{}, "components": rows, "pinned": false, "type": 0, "flags": 0,
	}
	if m.ReplyTo != "" {
		j["type"] = 19
		j["message_reference"] = map[string]any{"message_id": m.ReplyTo, "channel_id": m.ChannelID}
	}
	if g := s.guildOfLocked(m.ChannelID); g != "" {
		j["guild_id"] = g
	}
	return j
}
