package web

import (
	"context"
	"net/http"
	"strings"
)

// Plugins is what the Plugins tab reads and changes: the plugin store as
// `jarvisbot plugins` sees it (P2), and the same install, removal and
// sign-ins (P3, P4). Errors read as the command line words them.
type Plugins interface {
	// List is every plugin of the store with where the owner stands with
	// it, sorted by name.
	List(ctx context.Context) ([]PluginRow, error)
	// Plugin is one plugin of the store in full.
	Plugin(ctx context.Context, name string) (PluginPage, error)
	// Install starts installing a plugin with the values it asks for. It
	// returns once the install is over, or waits for the owner to sign in
	// (the progress then holds the link); an install that failed before
	// that is the error.
	Install(ctx context.Context, name string, in InstallInput) (Progress, error)
	// Renew starts a new sign-in of an installed plugin, as the chat's
	// Renew button does, and returns its progress with the link.
	Renew(ctx context.Context, name string) (Progress, error)
	// Progress is the latest install or renewal of a plugin started here;
	// false when there is none.
	Progress(ctx context.Context, name string) (Progress, bool)
	// Remove uninstalls a plugin and says what it did.
	Remove(ctx context.Context, name string) (string, error)
}

// PluginRow is a plugin of the store in the list.
type PluginRow struct {
	Name, DisplayName, Description string
	Kind                           string // "built in", "MCP server" or "chat channel"
	State                          string // as `plugins list` says it: "needs-attention", "connected", …
	Brings                         string // what installing it adds, in a few words
	Installed                      bool
	Attention                      bool // its sign-in expired, was revoked or failed (P4)
	// SignInMissing: installed, but its sign-in never completed (it was
	// skipped, or the owner did not finish it); its page offers one.
	SignInMissing bool
	// AsksValues: installing it asks for values (a host, a token), so it
	// is installed from its own page, which has the fields.
	AsksValues bool
}

// PluginPage is one plugin in full: what `plugins show` says.
type PluginPage struct {
	PluginRow
	Version  string
	Since    string // when it was installed; "" when it is not
	From     string // where a plugin of the owner's own came from
	SignIn   string // how the owner signs in, in words
	Homepage string
	Manual   string // the manual's capability id, skill:NAME
	Tier     string // the manual's tier
	Words    []string
	WordsDE  []string
	Text     string // the manual, control characters visible
	Tools    []PluginTool
	Servers  []PluginServer
	// Settings are the values installing it asks for, missing now.
	Settings []Setting
	// Google: one Google sign-in may serve every Google plugin.
	Google bool
	// Renewable: its sign-in can be renewed from here.
	Renewable bool
}

// PluginTool is a tool the plugin brings, with its tier (C2).
type PluginTool struct {
	ID, Tier, Description string
}

// PluginServer is an MCP server the plugin brings.
type PluginServer struct {
	ID, Type, Target string
}

// Setting is a value a plugin asks for at install, kept in the keyring.
type Setting struct {
	Name, Hint string
	Secret     bool // shown as a password field
}

// InstallInput is the install form: the values the plugin asks for, by
// setting name, and whether one Google sign-in should serve every Google
// plugin.
type InstallInput struct {
	Values    map[string]string
	AllGoogle bool
}

// Progress is an install or renewal in progress, or its end.
type Progress struct {
	Plugin, DisplayName string
	Action              string // "install" or "renew"
	Link                string // the sign-in link to open, once there is one
	Words               string // what it said so far, as the command line says it
	Done                bool
	Err                 string // why it failed, once Done; "" when it did not
}

// pluginsView is the list page's data.
type pluginsView struct {
	Attention, Installed, Store []PluginRow
}

// pluginsRoutes are the Plugins tab's pages and forms.
var pluginsRoutes = []tabRoute{
	{"GET /plugins", (*Server).pluginsList},
	{"GET /plugins/{name}", (*Server).pluginShow},
	{"GET /plugins/{name}/progress", (*Server).pluginProgress},
	{"POST /plugins/{name}/install", (*Server).pluginInstall},
	{"POST /plugins/{name}/remove", (*Server).pluginRemove},
	{"POST /plugins/{name}/renew", (*Server).pluginRenew},
}

func (s *Server) pluginsList(w http.ResponseWriter, r *http.Request) {
	if s.o.Plugins == nil {
		s.unavailable(w, r, "The plugin store")
		return
	}
	rows, err := s.o.Plugins.List(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	var v pluginsView
	for _, row := range rows {
		switch {
		case row.Attention:
			v.Attention = append(v.Attention, row)
		case row.Installed:
			v.Installed = append(v.Installed, row)
		default:
			v.Store = append(v.Store, row)
		}
	}
	s.render(w, r, "plugins", "Plugins", pluginsContent(csrfFrom(r), v))
}

func (s *Server) pluginShow(w http.ResponseWriter, r *http.Request) {
	if s.o.Plugins == nil {
		s.unavailable(w, r, "The plugin store")
		return
	}
	p, err := s.o.Plugins.Plugin(r.Context(), r.PathValue("name"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, r, "plugin", p.DisplayName, pluginContent(csrfFrom(r), p))
}

// settingField is the form field of a setting's value.
const settingField = "setting."

func (s *Server) pluginInstall(w http.ResponseWriter, r *http.Request) {
	if s.o.Plugins == nil {
		s.unavailable(w, r, "The plugin store")
		return
	}
	if err := r.ParseForm(); err != nil {
		s.refuse(w, r, http.StatusBadRequest, "The install form could not be read: "+err.Error())
		return
	}
	in := InstallInput{Values: map[string]string{}, AllGoogle: r.PostForm.Get("all_google") != ""}
	for k, v := range r.PostForm {
		if name, ok := strings.CutPrefix(k, settingField); ok && len(v) > 0 {
			in.Values[name] = v[0]
		}
	}
	name := r.PathValue("name")
	p, err := s.o.Plugins.Install(r.Context(), name, in)
	s.started(w, r, name, p, err)
}

func (s *Server) pluginRenew(w http.ResponseWriter, r *http.Request) {
	if s.o.Plugins == nil {
		s.unavailable(w, r, "The plugin store")
		return
	}
	name := r.PathValue("name")
	p, err := s.o.Plugins.Renew(r.Context(), name)
	s.started(w, r, name, p, err)
}

// started ends an install or renewal request: back to the list with its
// words when it went through, else to its progress, which has the sign-in
// link or says why it failed.
func (s *Server) started(w http.ResponseWriter, r *http.Request, name string, p Progress, err error) {
	switch {
	case err != nil:
		s.fail(w, r, err)
	case p.Done && p.Err == "":
		s.done(w, r, "/plugins", p.Words)
	default: // waiting for the sign-in, or failed after its link: its page says which
		http.Redirect(w, r, "/plugins/"+name+"/progress", http.StatusSeeOther)
	}
}

// pluginProgress shows an install or renewal: the whole page, or, for
// htmx's poll, the progress block alone.
func (s *Server) pluginProgress(w http.ResponseWriter, r *http.Request) {
	if s.o.Plugins == nil {
		s.unavailable(w, r, "The plugin store")
		return
	}
	name := r.PathValue("name")
	p, ok := s.o.Plugins.Progress(r.Context(), name)
	if !ok {
		s.refuse(w, r, http.StatusNotFound, "No install or sign-in of "+name+" was started in this process: start one from its page.")
		return
	}
	if r.Header.Get("HX-Request") == "true" {
		s.renderBlock(w, r, progressBlock(p))
		return
	}
	s.render(w, r, "plugin-progress", p.DisplayName, pluginProgressContent(p))
}

func (s *Server) pluginRemove(w http.ResponseWriter, r *http.Request) {
	if s.o.Plugins == nil {
		s.unavailable(w, r, "The plugin store")
		return
	}
	note, err := s.o.Plugins.Remove(r.Context(), r.PathValue("name"))
	s.finish(w, r, "/plugins", note, err)
}
