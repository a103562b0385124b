package llm

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot"
)

// env is a process environment and a keyring, as Choose reads them.
func env(vars, keyring map[string]string) Env {
	return Env{
		Getenv: func(k string) string { return vars[k] },
		Secret: func(_ context.Context, k string) string {
			if v := keyring[k]; v != "" {
				return v
			}
			return vars[k]
		},
	}
}

// TestChooseCodingCLIM5: claude-code and codex choose a CLI, from the
// settings or JARVIS_PROVIDER, with its command when the settings name
// one (an agent's over the installation's) and no API key.
func TestChooseCodingCLIM5(t *testing.T) {
	for _, tc := range []struct {
		name     string
		settings Settings
		vars     map[string]string
		cli, cmd string
	}{
		{name: "claude-code on PATH", settings: Settings{Name: "claude-code", MaxSteps: 5}, cli: "claude-code"},
		{name: "an agent's codex at its own path", settings: Settings{Name: "anthropic", Model: "m"}.Over(Settings{Name: "codex", Command: "/opt/codex"}), cli: "codex", cmd: "/opt/codex"},
		{name: "an agent's codex does not take the installation's claude path", settings: Settings{Name: "claude-code", Command: "/opt/claude"}.Over(Settings{Name: "codex"}), cli: "codex"},
		{name: "JARVIS_PROVIDER names the CLI", settings: Settings{Name: "openai", Model: "gpt"}, vars: map[string]string{"JARVIS_PROVIDER": "Claude-Code"}, cli: "claude-code"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Choose(context.Background(), tc.settings, env(tc.vars, nil))
			if err != nil {
				t.Fatal(err)
			}
			if got.CLI != tc.cli || got.Command != tc.cmd || got.Config.APIKey != "" {
				t.Errorf("got CLI %q command %q (key %q), want %q %q and no key", got.CLI, got.Command, got.Config.APIKey, tc.cli, tc.cmd)
			}
		})
	}
	api := Settings{Name: "claude-code", Command: "/opt/claude"}.Over(Settings{Name: "anthropic", Model: "m"})
	if got, err := Choose(context.Background(), api, env(nil, map[string]string{"ANTHROPIC_API_KEY": "k"})); err != nil || got.CLI != "" {
		t.Errorf("an API provider chose CLI %q (%v)", got.CLI, err)
	}
}

// TestChooseProviderA3: which provider, model, address and key an agent
// gets, from its own entry, the installation's, the environment and the
// keyring, and what the owner is told when something is missing.
func TestChooseProviderA3(t *testing.T) {
	global := Settings{Name: "anthropic", Model: "claude-x", MaxTokens: 1000, Timeout: time.Minute}
	for _, tc := range []struct {
		name     string
		settings Settings
		vars     map[string]string
		keyring  map[string]string
		want     Config
		steps    int
		err      string // a part of the error; "" for none
	}{
		{name: "the config's provider, key in the keyring", settings: global, keyring: map[string]string{"ANTHROPIC_API_KEY": "kr"},
			want: Config{Provider: "anthropic", Model: "claude-x", APIKey: "kr", Timeout: time.Minute}},
		{name: "the keyring wins over the environment", settings: global,
			vars: map[string]string{"ANTHROPIC_API_KEY": "env"}, keyring: map[string]string{"ANTHROPIC_API_KEY": "kr"},
			want: Config{Provider: "anthropic", Model: "claude-x", APIKey: "kr", Timeout: time.Minute}},
		{name: "an agent's entry over the installation's", settings: global.Over(Settings{Name: "openai", Model: "gpt-x", BaseURL: "http://local/v1", MaxSteps: 3}),
			want: Config{Provider: "openai", Model: "gpt-x", BaseURL: "http://local/v1", Timeout: time.Minute}, steps: 3},
		{name: "JARVIS_PROVIDER and JARVIS_MODEL win", settings: global,
			vars: map[string]string{"JARVIS_PROVIDER": "OpenAI", "JARVIS_MODEL": "gpt-4.1", "OPENAI_API_KEY": "o", "OPENAI_BASE_URL": "http://o/v1"},
			want: Config{Provider: "openai", Model: "gpt-4.1", BaseURL: "http://o/v1", APIKey: "o", Timeout: time.Minute}},
		{name: "no provider named: Anthropic's key chooses", vars: map[string]string{"ANTHROPIC_API_KEY": "a", "OPENAI_API_KEY": "o", "JARVIS_MODEL": "m"},
			want: Config{Provider: "anthropic", Model: "m", APIKey: "a"}},
		{name: "no provider named: an OpenAI-compatible address alone chooses", vars: map[string]string{"OPENAI_BASE_URL": "http://localhost:11434/v1", "JARVIS_MODEL": "llama3.1"},
			want: Config{Provider: "openai", Model: "llama3.1", BaseURL: "http://localhost:11434/v1"}},
		{name: "a key under the name the settings give", settings: Settings{Name: "anthropic", Model: "m", APIKeySecret: "WORK_KEY"}, keyring: map[string]string{"WORK_KEY": "w"},
			want: Config{Provider: "anthropic", Model: "m", APIKey: "w"}},
		{name: "nothing set says every way to set it", err: "no model provider is configured. Set one of: ANTHROPIC_API_KEY"},
		{name: "an unknown provider", vars: map[string]string{"JARVIS_PROVIDER": "gemini"}, err: `JARVIS_PROVIDER="gemini": use anthropic or openai`},
		{name: "an unknown provider names the CLIs too", vars: map[string]string{"JARVIS_PROVIDER": "gemini"}, err: "claude-code or codex"},
		{name: "a command for an API provider", settings: Settings{Name: "openai", Model: "m", BaseURL: "http://local/v1", Command: "/opt/codex"}, err: "command"},
		{name: "no model", settings: Settings{Name: "anthropic"}, keyring: map[string]string{"ANTHROPIC_API_KEY": "k"}, err: "no model set for anthropic"},
		{name: "no Anthropic key", settings: global, err: "no Anthropic API key"},
		{name: "no OpenAI key nor address", settings: Settings{Name: "openai", Model: "gpt"}, err: "no OpenAI API key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Choose(context.Background(), tc.settings, env(tc.vars, tc.keyring))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
					t.Fatalf("err = %v, want an invalid-settings error with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Config != tc.want || got.MaxSteps != tc.steps {
				t.Errorf("got %+v (steps %d), want %+v (steps %d)", got.Config, got.MaxSteps, tc.want, tc.steps)
			}
			if _, err := New(got.Config); err != nil {
				t.Errorf("New refuses what Choose chose: %v", err)
			}
		})
	}
}
