package app

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/plugins"
	"github.com/jarvisbot/jarvisbot/plugins/local"
	"github.com/jarvisbot/jarvisbot/store"
)

// kinds records the kinds of the events of a use case.
type kinds []PluginEventKind

func (k *kinds) record(e PluginEvent) { *k = append(*k, e.Kind) }

// stateOf is a plugin's state in the list.
func stateOf(t *testing.T, in *Installation, name string) string {
	t.Helper()
	list, err := in.Plugins(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range list.Entries {
		if e.Name == name {
			return e.State
		}
	}
	t.Fatalf("%s is not in the list", name)
	return ""
}

// TestPluginInstallTellsEachStepP2P3: an install tells each step as an
// event (recorded, each server, what is left to do), in the order the
// doors show them; the list then has it installed, and a removal takes
// it back.
func TestPluginInstallTellsEachStepP2P3(t *testing.T) {
	tests := []struct {
		plugin string
		o      InstallOptions
		want   kinds
		state  string
	}{
		{"deepwiki", InstallOptions{}, kinds{PluginInstalled, PluginServerOn, PluginConnectNote}, "installed"},
		{"github", InstallOptions{NoSignIn: true}, kinds{PluginInstalled, PluginServerOff, PluginConnectNote}, "installed"},
		// No Google client is set up: that is a step of setup left to
		// do, not a failed install.
		{"google-calendar", InstallOptions{}, kinds{PluginInstalled, PluginNoClient}, "installed"},
	}
	for _, tt := range tests {
		t.Run(tt.plugin, func(t *testing.T) {
			in := testInstallation(t, nil)
			var got kinds
			res, err := in.InstallPlugin(t.Context(), tt.plugin, tt.o, got.record)
			if err != nil {
				t.Fatal(err)
			}
			if res.Name != tt.plugin || res.Declined {
				t.Errorf("result %+v", res)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("events %v, want %v", got, tt.want)
			}
			if s := stateOf(t, in, tt.plugin); s != tt.state {
				t.Errorf("state %q, want %q", s, tt.state)
			}
			if _, err := in.InstallPlugin(t.Context(), tt.plugin, tt.o, nil); jarvisbot.ErrorCode(err) != jarvisbot.ECONFLICT {
				t.Errorf("second install: %v, want a conflict", err)
			}
			removed, err := in.RemovePlugin(t.Context(), tt.plugin)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(removed.String(), "Removed "+res.Display+":") {
				t.Errorf("removal says %q", removed)
			}
			if s := stateOf(t, in, tt.plugin); s != plugins.NotInstalled {
				t.Errorf("after removal: %q", s)
			}
		})
	}
}

// TestPluginInstallAsksForSettingsP6X3: a plugin that signs in with
// values asks for each missing one through Ask, keeps them in the keyring
// and switches its server on; with nobody to ask, or no value given, it
// stays installed and off, and says so.
func TestPluginInstallAsksForSettingsP6X3(t *testing.T) {
	t.Run("asked", func(t *testing.T) {
		in := testInstallation(t, nil)
		var asked []PluginSetting
		ask := func(s PluginSetting) (string, error) {
			asked = append(asked, s)
			return "value-of-" + s.Name, nil
		}
		var got kinds
		if _, err := in.InstallPlugin(t.Context(), "home-assistant", InstallOptions{Ask: ask}, got.record); err != nil {
			t.Fatal(err)
		}
		if len(asked) != 2 || asked[0].Name != "HOME_ASSISTANT_HOST" || asked[0].Secret || asked[1].Name != "HOME_ASSISTANT_TOKEN" || !asked[1].Secret {
			t.Errorf("asked %+v", asked)
		}
		if want := (kinds{PluginInstalled, PluginServerOff, PluginSettingsKept, PluginSettingsOn}); !slices.Equal(got, want) {
			t.Errorf("events %v, want %v", got, want)
		}
		if s := stateOf(t, in, "home-assistant"); s != string(store.PluginConnected) {
			t.Errorf("state %q", s)
		}
		kr, err := in.Env.OpenSecrets(in.Config)
		if err != nil {
			t.Fatal(err)
		}
		if v, err := kr.Get(t.Context(), "HOME_ASSISTANT_TOKEN"); err != nil || v != "value-of-HOME_ASSISTANT_TOKEN" {
			t.Errorf("the token in the keyring: %q, %v", v, err)
		}
	})
	for name, ask := range map[string]func(PluginSetting) (string, error){
		"nobody to ask": nil,
		"no value":      func(PluginSetting) (string, error) { return "", nil },
	} {
		t.Run(name, func(t *testing.T) {
			in := testInstallation(t, nil)
			var events []PluginEvent
			if _, err := in.InstallPlugin(t.Context(), "home-assistant", InstallOptions{Ask: ask}, func(e PluginEvent) { events = append(events, e) }); err != nil {
				t.Fatal(err)
			}
			last := events[len(events)-1]
			if last.Kind != PluginSettingsMissing && last.Kind != PluginNoValue || !strings.Contains(last.String(), "jarvisbot plugins signin home-assistant") {
				t.Errorf("last step: %v %q", last.Kind, last)
			}
			if s := stateOf(t, in, "home-assistant"); s != string(store.PluginInstalled) {
				t.Errorf("state %q, want installed and off", s)
			}
			p, err := in.Plugin(t.Context(), "home-assistant")
			if err != nil {
				t.Fatal(err)
			}
			if got := in.MissingSettings(t.Context(), p.Entry.Plugin); len(got) != 2 {
				t.Errorf("still missing: %+v", got)
			}
		})
	}
}

// TestPluginInstallRefusesP1P2: each mistake is its coded error, before
// anything is recorded.
func TestPluginInstallRefusesP1P2(t *testing.T) {
	in := testInstallation(t, nil)
	tests := []struct {
		ref  string
		o    InstallOptions
		want error
		code jarvisbot.Code
	}{
		{"no-such-plugin", InstallOptions{}, nil, jarvisbot.ENOTFOUND},
		{"github", InstallOptions{Yes: true}, ErrFolderFlags, jarvisbot.EINVALID},
		{"github", InstallOptions{Trusted: true}, ErrFolderFlags, jarvisbot.EINVALID},
		{"github", InstallOptions{AllGoogle: true}, ErrAllGoogle, jarvisbot.EINVALID},
	}
	for _, tt := range tests {
		_, err := in.InstallPlugin(t.Context(), tt.ref, tt.o, nil)
		if jarvisbot.ErrorCode(err) != tt.code || tt.want != nil && !errors.Is(err, tt.want) {
			t.Errorf("%s %+v: %v, want %s", tt.ref, tt.o, err, tt.code)
		}
	}
	if s := stateOf(t, in, "github"); s != plugins.NotInstalled {
		t.Errorf("github: %q", s)
	}
	if _, err := in.RemovePlugin(t.Context(), "github"); err == nil {
		t.Error("removing a plugin that is not installed succeeded")
	}
	if err := in.SignInPlugin(t.Context(), "github", SignInOptions{}, nil); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		t.Errorf("signing in to a plugin that is not installed: %v", err)
	}
	if err := in.RenewPlugin(t.Context(), "github", nil); jarvisbot.ErrorCode(err) != jarvisbot.EUNAVAILABLE {
		t.Errorf("renewing without the running service: %v", err)
	}
}

// writeFolder writes a plugin folder with one stdio server and no skills.
func writeFolder(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"plugin.json": `{"$schema":"https://agent-plugins.org/schemas/1.0.0/plugin.schema.json","name":"` + name + `","version":"1.0.0","description":"Demo widgets.",
		"extensions":{"dev.jarvisbot":{"displayName":"Demo","signIn":{"method":"none"}}}}`,
		"mcp.json": `{"$schema":"https://agent-plugins.org/schemas/1.0.0/mcp.schema.json","mcpServers":{
		"demo-local":{"type":"stdio","command":"npx","args":["-y","@demo/server"]}}}`,
	}
	for rel, text := range files {
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestPluginFolderInstallsOnConsentP1X1: a plugin folder is shown to
// Consent first; a no installs nothing, a yes installs a copy, and
// removing it deletes the copy, never the owner's folder.
func TestPluginFolderInstallsOnConsentP1X1(t *testing.T) {
	in := testInstallation(t, nil)
	dir := writeFolder(t, "demo")
	var shown []local.Staged
	no := func(st local.Staged) (bool, error) { shown = append(shown, st); return false, nil }
	res, err := in.InstallPlugin(t.Context(), dir, InstallOptions{Consent: no}, nil)
	if err != nil || !res.Declined || len(shown) != 1 || shown[0].Plugin.Manifest.Name != "demo" {
		t.Fatalf("declined: %+v %v, shown %d", res, err, len(shown))
	}
	if _, err := in.Plugin(t.Context(), "demo"); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		t.Fatalf("after a no, the store has it: %v", err)
	}
	var got kinds
	res, err = in.InstallPlugin(t.Context(), dir, InstallOptions{}, got.record)
	if err != nil || res.Declined || res.Name != "demo" {
		t.Fatalf("install: %+v %v", res, err)
	}
	if want := (kinds{PluginInstalled, PluginServerOn, PluginConnectNote}); !slices.Equal(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
	f, err := in.Plugin(t.Context(), "demo")
	if err != nil {
		t.Fatal(err)
	}
	if f.State != "installed" || f.From == "" || len(f.Servers) != 1 || f.Servers[0].Target != "npx -y @demo/server" {
		t.Errorf("facts %+v", f)
	}
	removed, err := in.RemovePlugin(t.Context(), "demo")
	if err != nil || removed.Local == "" {
		t.Fatalf("remove: %+v %v", removed, err)
	}
	if _, err := os.Stat(removed.Local); !os.IsNotExist(err) {
		t.Errorf("the copy outlived the removal: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "plugin.json")); err != nil {
		t.Errorf("the owner's folder was touched: %v", err)
	}
}

// TestPluginShowP2: a plugin of the store in full, and the tools a
// built-in plugin brings.
func TestPluginShowP2(t *testing.T) {
	in := testInstallation(t, nil)
	f, err := in.Plugin(t.Context(), "github")
	if err != nil {
		t.Fatal(err)
	}
	if f.State != "not installed" || f.Manual != "github" || f.Tier != "ask" || len(f.Servers) != 1 || f.Servers[0].Type != "streamable-http" || !f.Renewable {
		t.Errorf("github: %+v", f)
	}
	g, err := in.Plugin(t.Context(), "gmail")
	if err != nil {
		t.Fatal(err)
	}
	tools, err := in.PluginTools(t.Context(), g)
	if err != nil {
		t.Fatal(err)
	}
	if !g.Builtin || !g.Google || len(tools) == 0 || len(tools) != g.Entry.Tools {
		t.Errorf("gmail: builtin %v google %v, %d tools (%d listed)", g.Builtin, g.Google, len(tools), g.Entry.Tools)
	}
}

// TestValidatePluginP1: problems are values; any that is not a warning
// makes the folder invalid.
func TestValidatePluginP1(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "demo")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "plugin.json"), []byte(`{"$schema":"x","name":"Bad--Name","version":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	problems, err := ValidatePlugin(dir)
	if jarvisbot.ErrorCode(err) != jarvisbot.EINVALID || len(problems) == 0 {
		t.Errorf("bad folder: %v, %d problems", err, len(problems))
	}
	if problems, err := ValidatePlugin(writeFolder(t, "demo")); err != nil {
		t.Errorf("good folder: %v %v", err, problems)
	}
}

// TestCallPluginRefusesP6: only an installed built-in plugin's own tools
// are called, with JSON arguments.
func TestCallPluginRefusesP6(t *testing.T) {
	in := testInstallation(t, nil)
	if _, err := in.InstallPlugin(t.Context(), "google-calendar", InstallOptions{NoSignIn: true}, nil); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		plugin, tool, args string
		code               jarvisbot.Code
		says               string
	}{
		{"github", "search", "{}", jarvisbot.EINVALID, "mcp call"},
		{"gmail", "search", "{}", jarvisbot.ENOTFOUND, "not installed"},
		{"google-calendar", "list_events", "{", jarvisbot.EINVALID, "not JSON"},
		{"google-calendar", "fly", "{}", jarvisbot.ENOTFOUND, "it has"},
	}
	for _, tt := range tests {
		_, err := in.CallPlugin(t.Context(), tt.plugin, tt.tool, tt.args)
		if jarvisbot.ErrorCode(err) != tt.code || err == nil || !strings.Contains(err.Error(), tt.says) {
			t.Errorf("%s %s %s: %v, want %s saying %q", tt.plugin, tt.tool, tt.args, err, tt.code, tt.says)
		}
	}
}
