package fakediscord

import (
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"regexp"
	"unicode/utf16"
)

func (s *Server) me(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.userJSON(s.bot.ID))
}

// messageBody is what create and edit accept. Pointers tell "absent"
// from "empty", as PATCH needs.
type messageBody struct {
	Content    *string          `json:"content"`
	Components *[]componentJSON `json:"components"`
	Flags      int              `json:"flags"`
	Reference  *struct {
		MessageID string `json:"message_id"`
	} `json:"message_reference"`
}

func decodeJSON(r io.Reader, into any) error { return json.NewDecoder(r).Decode(into) }

type componentJSON struct {
	Type       int             `json:"type"`
	Style      int             `json:"style"`
	Label      string          `json:"label"`
	CustomID   string          `json:"custom_id"`
	URL        string          `json:"url"`
	Components []componentJSON `json:"components"`
}

// invalid is Discord's "Invalid Form Body" answer.
func invalid(w http.ResponseWriter, why string) {
	writeError(w, http.StatusBadRequest, 50035, "Invalid Form Body: "+why)
}

// rows checks components as Discord does and converts them.
func rows(cs []componentJSON) ([][]Button, error) {
	if len(cs) > 5 {
		return nil, fmt.Errorf("components: at most 5 action rows, got %d", len(cs))
	}
	seen := map[string]bool{}
	var out [][]Button
	for i, row := range cs {
		if row.Type != 1 {
			return nil, fmt.Errorf("components.%d: type %d, want 1 (action row)", i, row.Type)
		}
		if len(row.Components) == 0 || len(row.Components) > 5 {
			return nil, fmt.Errorf("components.%d: an action row holds 1 to 5 buttons, got %d", i, len(row.Components))
		}
		var bs []Button
		for j, b := range row.Components {
			switch {
			case b.Type != 2:
				return nil, fmt.Errorf("components.%d.%d: type %d, want 2 (button)", i, j, b.Type)
			case b.Style < 1 || b.Style > 5:
				return nil, fmt.Errorf("components.%d.%d: style %d", i, j, b.Style)
			case b.Style != 5 && (len(b.CustomID) == 0 || len(b.CustomID) > maxCustomIDLength):
				return nil, fmt.Errorf("components.%d.%d.custom_id: length %d, must be 1 to %d", i, j, len(b.CustomID), maxCustomIDLength)
			case seen[b.CustomID]:
				return nil, fmt.Errorf("components.%d.%d.custom_id: %q is used twice", i, j, b.CustomID)
			case len([]rune(b.Label)) > maxButtonLabelChars:
				return nil, fmt.Errorf("components.%d.%d.label: longer than %d", i, j, maxButtonLabelChars)
			}
			seen[b.CustomID] = true
			bs = append(bs, Button{Label: b.Label, CustomID: b.CustomID, Style: b.Style})
		}
		out = append(out, bs)
	}
	return out, nil
}

// contentLength counts as Discord's limit is strictest about: UTF-16 units.
func contentLength(s string) int { return len(utf16.Encode([]rune(s))) }

// createMessage takes JSON, or multipart/form-data with files.
func (s *Server) createMessage(w http.ResponseWriter, r *http.Request) {
	var b messageBody
	var files []File
	if mt, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == "multipart/form-data" {
		var code int
		var msg string
		if files, code, msg = multipartMessage(r, params["boundary"], &b); code != 0 {
			status := http.StatusBadRequest
			if code == 40005 {
				status = http.StatusRequestEntityTooLarge
			}
			writeError(w, status, code, msg)
			return
		}
	} else if err := decodeJSON(r.Body, &b); err != nil {
		writeError(w, http.StatusBadRequest, 50109, "The request body contains invalid JSON.")
		return
	}
	m := &Message{ChannelID: r.PathValue("channel"), Files: files, Flags: b.Flags}
	if b.Content != nil {
		m.Content = *b.Content
	}
	if b.Reference != nil {
		m.ReplyTo = b.Reference.MessageID
	}
	if b.Components != nil {
		rs, err := rows(*b.Components)
		if err != nil {
			invalid(w, err.Error())
			return
		}
		m.Rows = rs
	}
	switch {
	case m.Content == "" && len(m.Rows) == 0 && len(m.Files) == 0:
		writeError(w, http.StatusBadRequest, 50006, "Cannot send an empty message")
		return
	case contentLength(m.Content) > maxContentLength:
		invalid(w, fmt.Sprintf("content: must be %d or fewer in length", maxContentLength))
		return
	}
	s.mu.Lock()
	m.ID = s.idLocked()
	for _, f := range m.Files {
		a := &attachment{id: s.idLocked(), messageID: m.ID, channelID: m.ChannelID, fileName: f.Name,
			contentType: f.ContentType, sig: randomHex(), data: f.Data, size: len(f.Data)}
		s.attachments[a.id] = a
	}
	s.messages[m.ID] = m
	s.sent = append(s.sent, *m)
	j := s.messageJSONLocked(m)
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, j)
}

func (s *Server) editMessage(w http.ResponseWriter, r *http.Request) {
	var b messageBody
	if err := json.NewDecoder(r.Body).Decode(&b); err != nil {
		writeError(w, http.StatusBadRequest, 50109, "The request body contains invalid JSON.")
		return
	}
	j, status, code, msg := s.edit(r.PathValue("channel"), r.PathValue("message"), b)
	if status != http.StatusOK {
		writeError(w, status, code, msg)
		return
	}
	writeJSON(w, http.StatusOK, j)
}

// edit applies b to a message the bot sent, as PATCH and interaction
// replies of type 7 do.
func (s *Server) edit(channelID, messageID string, b messageBody) (map[string]any, int, int, string) {
	var rs [][]Button
	if b.Components != nil {
		var err error
		if rs, err = rows(*b.Components); err != nil {
			return nil, http.StatusBadRequest, 50035, "Invalid Form Body: " + err.Error()
		}
	}
	if b.Content != nil && contentLength(*b.Content) > maxContentLength {
		return nil, http.StatusBadRequest, 50035, fmt.Sprintf("Invalid Form Body: content: must be %d or fewer in length", maxContentLength)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.messages[messageID]
	if !ok || m.ChannelID != channelID {
		return nil, http.StatusNotFound, 10008, "Unknown Message"
	}
	content, buttons := m.Content, m.Rows
	if b.Content != nil {
		content = *b.Content
	}
	if b.Components != nil {
		buttons = rs
	}
	if content == "" && len(buttons) == 0 {
		return nil, http.StatusBadRequest, 50006, "Cannot send an empty message"
	}
	m.Content, m.Rows = content, buttons
	e := *m
	e.Edit = true
	s.sent = append(s.sent, e)
	return s.messageJSONLocked(m), http.StatusOK, 0, ""
}

func (s *Server) typingStart(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.typing = append(s.typing, r.PathValue("channel"))
	s.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) callback(w http.ResponseWriter, r *http.Request) {
	var b struct {
		Type int         `json:"type"`
		Data messageBody `json:"data"`
	}
	if err := json.NewDecoder(r.Body).Decode(&b); err != nil {
		writeError(w, http.StatusBadRequest, 50109, "The request body contains invalid JSON.")
		return
	}
	s.mu.Lock()
	in, ok := s.interactions[r.PathValue("interaction")]
	switch {
	case !ok || in.token != r.PathValue("token"):
		s.mu.Unlock()
		writeError(w, http.StatusNotFound, 10062, "Unknown interaction")
		return
	case in.acked:
		s.mu.Unlock()
		writeError(w, http.StatusBadRequest, 40060, "Interaction has already been acknowledged.")
		return
	}
	in.acked = true // claimed now, so a concurrent second answer fails as on Discord
	s.mu.Unlock()
	if status, code, msg := s.answer(in, b.Type, b.Data); status != http.StatusOK {
		s.mu.Lock()
		in.acked = false
		s.mu.Unlock()
		writeError(w, status, code, msg)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// answer applies an interaction callback and records it.
func (s *Server) answer(in *interaction, typ int, data messageBody) (int, int, string) {
	reply := InteractionReply{InteractionID: in.id, Type: typ, Flags: data.Flags, Ephemeral: data.Flags&64 != 0}
	if data.Content != nil {
		reply.Content = *data.Content
	}
	switch typ {
	case 4:
		if reply.Content == "" {
			return http.StatusBadRequest, 50035, "Invalid Form Body: data.content: a reply needs content"
		}
		if data.Components != nil {
			if _, err := rows(*data.Components); err != nil {
				return http.StatusBadRequest, 50035, "Invalid Form Body: " + err.Error()
			}
		}
	case 5, 6:
	case 7:
		if in.messageID == "" {
			return http.StatusBadRequest, 40043, "Interaction has no message to update"
		}
		if _, status, code, msg := s.edit(in.channelID, in.messageID, data); status != http.StatusOK {
			return status, code, msg
		}
	default:
		return http.StatusBadRequest, 50035, fmt.Sprintf("Invalid Form Body: type: %d is not a callback type the fake knows", typ)
	}
	s.mu.Lock()
	s.replies = append(s.replies, reply)
	s.mu.Unlock()
	return http.StatusOK, 0, ""
}

// followup is a message after the interaction was acknowledged, through
// the interaction's webhook.
func (s *Server) followup(w http.ResponseWriter, r *http.Request) {
	var b messageBody
	if err := json.NewDecoder(r.Body).Decode(&b); err != nil {
		writeError(w, http.StatusBadRequest, 50109, "The request body contains invalid JSON.")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var in *interaction
	for _, i := range s.interactions {
		if i.token == r.PathValue("token") {
			in = i
		}
	}
	switch {
	case in == nil || r.PathValue("application") != s.bot.ID:
		writeError(w, http.StatusNotFound, 10015, "Unknown Webhook")
		return
	case !in.acked:
		writeError(w, http.StatusBadRequest, 40060, "The interaction has not been acknowledged yet.")
		return
	case b.Content == nil || *b.Content == "":
		writeError(w, http.StatusBadRequest, 50006, "Cannot send an empty message")
		return
	}
	s.replies = append(s.replies, InteractionReply{InteractionID: in.id, Content: *b.Content, Flags: b.Flags, Ephemeral: b.Flags&64 != 0})
	writeJSON(w, http.StatusOK, map[string]any{
		"id": s.idLocked(), "channel_id": in.channelID, "content": *b.Content, "author": s.userJSON(s.bot.ID),
		"timestamp": now(), "flags": b.Flags, "type": 0,
	})
}

var commandName = regexp.MustCompile(`^[-_\p{Ll}\p{N}]{1,32}$`)

func (s *Server) setCommands(w http.ResponseWriter, r *http.Request) {
	if r.PathValue("application") != s.bot.ID {
		writeError(w, http.StatusForbidden, 50001, "Missing Access")
		return
	}
	var in []struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Type        int             `json:"type"`
		Options     []CommandOption `json:"options"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		writeError(w, http.StatusBadRequest, 50109, "The request body contains invalid JSON.")
		return
	}
	if len(in) > 100 {
		invalid(w, "at most 100 global commands")
		return
	}
	var cmds []Command
	var out []any
	seen := map[string]bool{}
	for i, c := range in {
		switch {
		case !commandName.MatchString(c.Name):
			invalid(w, fmt.Sprintf("%d.name: %q is not a valid command name", i, c.Name))
			return
		case seen[c.Name]:
			invalid(w, fmt.Sprintf("%d.name: %q is used twice", i, c.Name))
			return
		case len([]rune(c.Description)) < 1 || len([]rune(c.Description)) > 100:
			invalid(w, fmt.Sprintf("%d.description: must be 1 to 100 long", i))
			return
		}
		for j, o := range c.Options {
			if !commandName.MatchString(o.Name) || len([]rune(o.Description)) < 1 || len([]rune(o.Description)) > 100 {
				invalid(w, fmt.Sprintf("%d.options.%d: invalid name or description", i, j))
				return
			}
		}
		seen[c.Name] = true
		cmd := Command{ID: s.id(), Name: c.Name, Description: c.Description, Options: c.Options}
		cmds = append(cmds, cmd)
		out = append(out, map[string]any{
			"id": cmd.ID, "application_id": s.bot.ID, "name": c.Name, "description": c.Description,
			"type": 1, "options": c.Options, "version": cmd.ID,
		})
	}
	s.mu.Lock()
	s.commands = cmds
	s.mu.Unlock()
	if out == nil {
		out = []any{}
	}
	writeJSON(w, http.StatusOK, out)
}
