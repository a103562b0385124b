package web

import (
	"context"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/jarvisbot/jarvisbot"
)

// Skills is what the Skills tab reads and changes (S2, S5, S6, S7): the
// skill use cases `jarvisbot skills` runs too (SkillsTab). A change
// returns what it did in the CLI's words, which the page shows as its
// note.
type Skills interface {
	// List is every skill `skills list` shows, and the agents' own
	// skills, which can be promoted.
	List(ctx context.Context) (SkillList, error)
	// Show is a skill's full text as `skills show --agent AGENT` prints
	// it; agent "" is the default agent.
	Show(ctx context.Context, agent, name string) (string, error)
	Switch(ctx context.Context, name string, on bool) (string, error)
	// Read reads a skill to install from a URL or an uploaded file and
	// returns the consent view; nothing is written.
	Read(ctx context.Context, in SkillSource) (SkillConsent, error)
	// Install installs the skill Read showed: in carries the text as it
	// was shown, and nothing else is installed.
	Install(ctx context.Context, in SkillSource) (string, error)
	// Promote makes an agent's own skill global as a draft, off.
	Promote(ctx context.Context, agent, name string) (string, error)
	Remove(ctx context.Context, name string) (string, error)
	// Learned are the words the scorer learned for a skill from the
	// owner's turns (C9), the most taught first, as `skills show` lists
	// them.
	Learned(ctx context.Context, name string) ([]MCPLearned, error)
	// Forget removes a word learned for a skill, or all of them for word
	// "", as `skills forget` does.
	Forget(ctx context.Context, name, word string) (string, error)
}

// SkillList is the Skills tab's table.
type SkillList struct {
	Skills []SkillRow
	// Agents are the agents' own skills (S7), by agent.
	Agents []SkillRow
	// Hidden is how many manuals of store plugins that are not installed
	// are left out.
	Hidden int
	// Warnings are the skill files that could not be read, one a line.
	Warnings string
}

// SkillRow is one skill.
type SkillRow struct {
	Name        string
	Description string
	Source      string // shipped, manual, yours, agent
	Kind        string // instructions, tools, background
	Plugin      string // the plugin whose manual it is, or ""
	Agent       string // the agent that wrote it (source agent), or ""
	On          bool
	State       string // "on", "off (why)"
	Schedule    string // its clock mark: the cron schedule, or ""
	Voice       bool   // its microphone mark
	Removable   bool   // the owner's own: remove deletes it
}

// SkillSource is where a skill to install comes from: a URL, or an
// uploaded file's name and text.
type SkillSource struct {
	URL      string
	FileName string
	Text     string // the file's text; for Install, the text the consent view showed
}

// SkillConsent is the consent view of a skill to install (S6, X2).
type SkillConsent struct {
	Name string
	// View is the consent view the CLI shows too: the full text with
	// control characters visible, the fields it will ignore, how it may
	// enter turns.
	View    string
	Dropped []string
	Dest    string
	Source  SkillSource // what Install is given when the owner agrees
}

// maxSkillUpload bounds what is read of an uploaded file: a SKILL.md is
// small, and the skills package refuses one over its limit in its words.
const maxSkillUpload = 1 << 20

// skillsRoutes are the Skills tab's pages and forms.
var skillsRoutes = []tabRoute{
	{"GET /skills", (*Server).skillsPage},
	{"GET /skills/{name}", (*Server).skillPage},
	{"POST /skills/{name}/switch", (*Server).skillSwitch},
	{"POST /skills/{name}/promote", (*Server).skillPromote},
	{"POST /skills/{name}/remove", (*Server).skillRemove},
	{"POST /skills/{name}/forget", (*Server).skillForget},
	{"POST /skills/install", (*Server).skillRead},
	{"POST /skills/install/confirm", (*Server).skillInstall},
}

// skillRowView is a row with what its forms need.
type skillRowView struct {
	SkillRow
	CSRF string
}

type skillsView struct {
	SkillList
	Rows, AgentRows []skillRowView
}

func (s *Server) skillsPage(w http.ResponseWriter, r *http.Request) {
	if s.o.Skills == nil {
		s.unavailable(w, r, "The Skills tab")
		return
	}
	list, err := s.o.Skills.List(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	csrf := csrfFrom(r)
	v := skillsView{SkillList: list}
	for _, row := range list.Skills {
		v.Rows = append(v.Rows, skillRowView{row, csrf})
	}
	for _, row := range list.Agents {
		v.AgentRows = append(v.AgentRows, skillRowView{row, csrf})
	}
	s.render(w, r, "skills", "Skills", skillsContent(csrfFrom(r), v))
}

func (s *Server) skillPage(w http.ResponseWriter, r *http.Request) {
	if s.o.Skills == nil {
		s.unavailable(w, r, "The Skills tab")
		return
	}
	name := r.PathValue("name")
	text, err := s.o.Skills.Show(r.Context(), r.URL.Query().Get("agent"), name)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	learned, err := s.o.Skills.Learned(r.Context(), name)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, r, "skill", "skill:"+name, skillContent(csrfFrom(r), name, text, learned))
}

// skillForget removes one word learned for a skill (the form's word), or
// all of them when the form names none.
func (s *Server) skillForget(w http.ResponseWriter, r *http.Request) {
	if s.o.Skills == nil {
		s.unavailable(w, r, "The Skills tab")
		return
	}
	name := r.PathValue("name")
	note, err := s.o.Skills.Forget(r.Context(), name, strings.TrimSpace(r.PostFormValue("word")))
	s.finish(w, r, "/skills/"+url.PathEscape(name), note, err)
}

// skillSwitch turns a skill on or off; htmx gets the row back alone.
func (s *Server) skillSwitch(w http.ResponseWriter, r *http.Request) {
	if s.o.Skills == nil {
		s.unavailable(w, r, "The Skills tab")
		return
	}
	name := r.PathValue("name")
	on := r.PostFormValue("on") == "true"
	note, err := s.o.Skills.Switch(r.Context(), name, on)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if r.Header.Get("HX-Request") == "true" {
		list, err := s.o.Skills.List(r.Context())
		if err != nil {
			s.fail(w, r, err)
			return
		}
		for _, row := range list.Skills {
			if row.Name == name {
				s.renderBlock(w, r, skillRow(skillRowView{row, csrfFrom(r)}))
				return
			}
		}
	}
	s.done(w, r, "/skills", note)
}

func (s *Server) skillPromote(w http.ResponseWriter, r *http.Request) {
	if s.o.Skills == nil {
		s.unavailable(w, r, "The Skills tab")
		return
	}
	note, err := s.o.Skills.Promote(r.Context(), r.PostFormValue("agent"), r.PathValue("name"))
	s.finish(w, r, "/skills", note, err)
}

func (s *Server) skillRemove(w http.ResponseWriter, r *http.Request) {
	if s.o.Skills == nil {
		s.unavailable(w, r, "The Skills tab")
		return
	}
	note, err := s.o.Skills.Remove(r.Context(), r.PathValue("name"))
	s.finish(w, r, "/skills", note, err)
}

// consentView carries the skill's text to the confirm form unchanged:
// base64, so that no line ending or control character is altered on the
// way through the browser.
type consentView struct {
	SkillConsent
	Carried string
	CSRF    string
}

// skillRead shows the consent view of a skill from a URL or a file.
func (s *Server) skillRead(w http.ResponseWriter, r *http.Request) {
	if s.o.Skills == nil {
		s.unavailable(w, r, "The Skills tab")
		return
	}
	src, err := skillSourceOf(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	c, err := s.o.Skills.Read(r.Context(), src)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, r, "skillinstall", "Install skill:"+c.Name, skillInstallContent(consentView{SkillConsent: c, Carried: base64.StdEncoding.EncodeToString([]byte(c.Source.Text)), CSRF: csrfFrom(r)}))
}

// skillInstall installs what the consent view showed.
func (s *Server) skillInstall(w http.ResponseWriter, r *http.Request) {
	if s.o.Skills == nil {
		s.unavailable(w, r, "The Skills tab")
		return
	}
	text, err := base64.StdEncoding.DecodeString(r.PostFormValue("text"))
	if err != nil || r.PostFormValue("confirm") == "" {
		s.fail(w, r, jarvisbot.Errorf(jarvisbot.EINVALID, "this form does not carry the skill you read: open it again from the Skills tab"))
		return
	}
	note, err := s.o.Skills.Install(r.Context(), SkillSource{URL: r.PostFormValue("url"), FileName: r.PostFormValue("filename"), Text: string(text)})
	s.finish(w, r, "/skills", note, err)
}

// skillSourceOf reads the install form: an uploaded file, else a URL.
func skillSourceOf(r *http.Request) (SkillSource, error) {
	f, h, err := r.FormFile("file")
	switch {
	case err == nil:
		defer func() { _ = f.Close() }() // an upload read to its end: its Close frees the parsed form's file, nothing to act on
		// One byte over the bound is enough for the skills package to
		// refuse it with its own words.
		data, err := io.ReadAll(io.LimitReader(f, maxSkillUpload+1))
		if err != nil {
			return SkillSource{}, jarvisbot.Errorf(jarvisbot.EINVALID, "reading the uploaded file: %w", err)
		}
		if len(data) > 0 {
			return SkillSource{FileName: h.Filename, Text: string(data)}, nil
		}
	case !errors.Is(err, http.ErrMissingFile) && !errors.Is(err, http.ErrNotMultipart):
		return SkillSource{}, jarvisbot.Errorf(jarvisbot.EINVALID, "reading the install form: %w", err)
	}
	if u := r.PostFormValue("url"); u != "" {
		// Only a URL: the CLI also reads a path on this machine, which a
		// form must not name.
		if pu, err := url.Parse(u); err != nil || (pu.Scheme != "https" && pu.Scheme != "http") {
			return SkillSource{}, jarvisbot.Errorf(jarvisbot.EINVALID, "%q: use an https URL", u)
		}
		return SkillSource{URL: u}, nil
	}
	return SkillSource{}, jarvisbot.Errorf(jarvisbot.EINVALID, "choose a SKILL.md file or give its https URL")
}

// csrfFrom is the request's session CSRF token, for forms in blocks.
func csrfFrom(r *http.Request) string {
	sess, _ := sessionFrom(r.Context())
	return sess.csrf
}
