package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/leftover"
)

// template is written by `jarvisbot init`. It sets every key to its default
// so the owner sees the whole shape, and shows examples in comments; a test
// checks that it loads and that it mentions every key Config has.
const template = `# jarvisbot configuration.
#
# This file is read at start-up from $JARVIS_CONFIG, else
# $XDG_CONFIG_HOME/jarvisbot/config.yaml, else ~/.config/jarvisbot/config.yaml.
# Unknown keys are an error, so a typo is reported instead of ignored.
# Relative paths are taken from the directory of this file; ~/ is your home.

# data_dir holds the database (jarvisbot.db) and, with the file keyring, the
# encrypted secrets. Empty means $XDG_DATA_HOME/jarvisbot, else
# ~/.local/share/jarvisbot. The environment variable JARVIS_DATA_DIR wins.
data_dir: ""

# store selects PostgreSQL instead of the SQLite file in data_dir, for
# several jarvisbot replicas sharing one store: a URL such as
# postgres://jarvis@db.internal:5432/jarvis?sslmode=verify-full. Empty means
# SQLite. No password here: give it through PGPASSWORD or ~/.pgpass, or set
# the whole URL in JARVIS_DATABASE_URL, which wins over this key.
store: ""

# log_level is one of debug, info, warn, error. JARVIS_LOG_LEVEL wins.
log_level: info

# keyring says where secrets (API keys, bot tokens) are kept; they never go
# into this file or the database. Store them with: jarvisbot secrets set NAME
keyring:
  # backend is one of file, secret-service, keyctl, pass, kwallet, or empty
  # to choose automatically: the desktop Secret Service when a D-Bus session
  # is running, else the encrypted file keyring.
  # JARVIS_KEYRING_BACKEND wins. The file keyring reads its passphrase from
  # JARVIS_KEYRING_PASSWORD.
  backend: ""
  # dir is the file keyring's directory. Empty means <data_dir>/keyring.
  dir: ""

# agents seeds agents by name when jarvisbot starts; an agent that already
# exists is left as you last changed it. The agent "default" always exists.
# Names are lowercase letters, digits, '-' and '_'.
#   description: what the agent is for; its tools are chosen from it.
#   allow: a short allow-list: when set, the agent gets only these capability
#          ids or patterns ("mcp:github/*", "plugin:*"); empty means all.
#   block: capability ids or patterns removed from the agent.
#   provider: this agent's own model, with the keys of provider below;
#             unset keys come from the top-level provider. A single entry
#             changes the primary and keeps the top-level fallbacks behind
#             it; a list is the agent's whole chain; a coding CLI has none.
#   chats: the chats this agent answers: telegram:CHAT_ID (a group's id
#          starts with -100), discord:CHANNEL_ID, or telegram or discord
#          alone for every chat there. A chat's own binding beats its
#          platform's; other chats get the default agent. In a chat,
#          /agent NAME switches it and @NAME sends one message to NAME.
agents:
  # research:
  #   description: Finds and summarises papers and articles.
  #   allow: ["mcp:arxiv/*", "builtin:wiki"]
  #   block: ["cli:rm"]
  #   chats: ["telegram:-1001234567890"]
  #   provider: {name: openai, base_url: "http://localhost:11434/v1", model: llama3.1}

# provider is the model the agents talk to. JARVIS_PROVIDER and JARVIS_MODEL
# win; with no name, jarvisbot takes anthropic when ANTHROPIC_API_KEY is set,
# else openai when OPENAI_API_KEY or OPENAI_BASE_URL is set.
#   name: anthropic, or openai for any OpenAI-compatible endpoint (OpenAI,
#         Ollama, vLLM, OpenRouter, llama.cpp server); or claude-code or
#         codex: the Claude Code or Codex CLI you are signed in to is the
#         model (no API key; jarvisbot's tools reach it over MCP).
#   command: the claude or codex CLI when it is not on PATH.
#   own_tools: let claude-code use its own shell, file and web tools, each
#         use asked of you like an ask-tier tool, with "always" per agent
#         (default false: jarvisbot's tools only; codex cannot ask, so it
#         never gets its own).
#   model: the model id.
#   base_url: the endpoint; else ANTHROPIC_BASE_URL / OPENAI_BASE_URL, else
#             the provider's own.
#   api_key_secret: the keyring name of the key (jarvisbot secrets set NAME);
#             else ANTHROPIC_API_KEY / OPENAI_API_KEY from the keyring or the
#             environment. Keys never go into this file.
#   max_tokens: per answer (default 4096); timeout: per model call (2m);
#   max_steps: tool-use steps in one turn (12).
#   images: true or false: whether the model takes the photos and images
#         you send. Unset, Claude models and OpenAI's gpt-4o, gpt-4.1 and
#         gpt-5 do; any other OpenAI-compatible model is taken not to (a
#         photo then gets an answer naming this setting, and no model call).
# provider may also be a list: the primary first, then its fallbacks, each a
# whole entry (name anthropic or openai, its own model, base_url,
# api_key_secret, timeout, max_tokens). A call the primary answers with 429,
# 5xx or overloaded, or not at all within its timeout, is sent once more and
# then goes to the next; a refused key, a bad request or an unknown model
# does not (it is yours to fix). The owner is told once when a fallback takes
# over and once when the primary is back; the primary is tried again every
# five minutes. A fallback's timeout defaults to the primary's. Coding CLIs
# cannot be in a list. For example:
#   provider:
#     - {name: anthropic, model: claude-sonnet-4-5, timeout: 60s}
#     - {name: openai, model: gpt-4.1, api_key_secret: OPENAI_API_KEY}
#     - {name: openai, base_url: "http://localhost:11434/v1", model: llama3.1}
provider:
  name: ""
  model: ""

# signin: where a plugin's browser sign-in comes back to.
#   listen: the loopback listener for the callback (default any free port).
#   public_base_url: for a jarvisbot on a server, its https address; the
#             sign-in returns to <public_base_url>/oauth/callback.
#             JARVIS_PUBLIC_URL wins.
#   google: the OAuth client you create once for Google Calendar, Gmail and
#             Google Drive (type "Desktop app"; the README says how):
#             client_id here or in the keyring as GOOGLE_OAUTH_CLIENT_ID;
#             its secret only in the keyring (jarvisbot secrets set
#             GOOGLE_OAUTH_CLIENT_SECRET), never in this file.
#   spotify: your Spotify app's client id (or SPOTIFY_CLIENT_ID in the
#             keyring); Spotify's sign-in needs no secret.
#   auth_url, token_url, api_endpoint under either move the provider (a
#             proxy, a test's fake); JARVIS_GOOGLE_AUTH_URL, _TOKEN_URL,
#             _API_ENDPOINT (and JARVIS_SPOTIFY_…) win.
signin:
  listen: ""
  public_base_url: ""
  google:
    client_id: ""
  spotify:
    client_id: ""

# timezone: your IANA time zone (Europe/Berlin, America/New_York); the
# calendar and mail tools read and show times in it. Empty means the
# system's; JARVIS_TIMEZONE wins.
timezone: ""

# mcp_server: jarvisbot as an MCP server for other apps (Claude Desktop,
# Cursor, VS Code, Claude Code, Codex, another jarvisbot); each app has its
# own key: jarvisbot apps add NAME.
#   listen: the streamable HTTP endpoint's address, http://ADDR/mcp
#           (default 127.0.0.1:8765; off disables it); JARVIS_MCP_LISTEN wins.
#           An address beyond loopback needs tls_cert and tls_key, or keep
#           it on loopback behind a reverse proxy that terminates TLS.
mcp_server:
  listen: 127.0.0.1:8765
  tls_cert: ""
  tls_key: ""

# web: the dashboard in a browser (plugins, skills, MCP servers, agents,
# approvals, activity, schedule, route). Sign in with the one-time link
# that jarvisbot web (or /dashboard in your chat) gives.
#   listen: its address (default 127.0.0.1:8780; off disables it);
#           JARVIS_WEB_LISTEN wins. Beyond loopback it needs tls_cert and
#           tls_key, or keep it on loopback behind a reverse proxy.
#   url: the address you open, when a reverse proxy serves it
#        (https://jarvis.example.org); JARVIS_WEB_URL wins.
#   /healthz (the process is alive) and /readyz (it answers: the store
#   answers, the channels started, it is not stopping) need no sign-in
#   and say nothing private.
#   metrics: true serves Prometheus metrics at /metrics, without sign-in;
#            off by default, since the listener may be public.
#            JARVIS_WEB_METRICS=1 (or 0) wins.
#   behind_proxy: true when a reverse proxy on a private network (a
#                 container's, a LAN) terminates TLS in front: listen may
#                 then reach beyond loopback without tls_cert, and
#                 /metrics refuses what the proxy forwards (requests with
#                 X-Forwarded-For), so scrape the replica directly.
#                 JARVIS_WEB_BEHIND_PROXY=1 (or 0) wins.
web:
  listen: 127.0.0.1:8780
  tls_cert: ""
  tls_key: ""
  url: ""
  metrics: false
  behind_proxy: false

# transcription: voice notes you send are turned into text by an
# OpenAI-compatible /v1/audio/transcriptions endpoint: OpenAI, a local
# whisper server, or any compatible one. Without it a voice note is kept
# and you are told what to set.
#   base_url: e.g. https://api.openai.com/v1 or http://localhost:8000/v1;
#             JARVIS_TRANSCRIPTION_BASE_URL wins.
#   model: default whisper-1; JARVIS_TRANSCRIPTION_MODEL wins.
#   api_key_secret: the keyring name (or environment variable) of its key,
#                   default JARVIS_TRANSCRIPTION_API_KEY.
transcription:
  base_url: ""
  model: ""
  api_key_secret: ""

# files: the photos and documents you send are kept in the data directory,
# under files/<chat>/, so a later question can refer to them.
#   quota_mb: the most each chat keeps (default 200); the oldest go first.
#             A negative value keeps none.
files:
  quota_mb: 200

# learning: when the model asks for a service the gate did not offer and
# then uses it, the gate learns the content words of your message for that
# service and offers it for them next time (jarvisbot mcp show NAME lists
# them, jarvisbot mcp forget NAME [WORD] removes them).
#   from_apps_and_schedules: let turns of apps and scheduled runs teach it
#                            too (default false: only your own messages).
learning:
  from_apps_and_schedules: false

# voice: when you spoke, the answer also comes back as a voice note, made
# by an OpenAI-compatible /v1/audio/speech endpoint (OGG/Opus).
#   reply: auto (the default) or never; JARVIS_VOICE_REPLY wins.
#   base_url: default transcription.base_url; JARVIS_VOICE_BASE_URL wins.
#   model: default tts-1; voice: default alloy (JARVIS_VOICE_MODEL,
#          JARVIS_VOICE_NAME).
#   api_key_secret: default the transcription's.
voice:
  reply: auto
  base_url: ""
  model: ""
  voice: ""
  api_key_secret: ""

# browser: builtin:browser, which reads web pages for the agents.
#   engine: go (the default, nothing to install) or chromium, for pages that
#           need JavaScript (install Debian's chromium); JARVIS_BROWSER_ENGINE
#           wins.
#   allow: your own hosts or networks ("nas.home", "192.168.1.0/24") that
#           may be read although private addresses are refused;
#           JARVIS_BROWSER_ALLOW (comma-separated) wins.
browser:
  engine: go
  allow: []

# telegram and discord: the chat channels. Their bot tokens come from the
# keyring (jarvisbot secrets set TELEGRAM_BOT_TOKEN / DISCORD_BOT_TOKEN) or
# the environment variables of the same names, never from this file.
#   owners: your user ids on that platform; JARVIS_TELEGRAM_OWNERS and
#           JARVIS_DISCORD_OWNERS (comma-separated) win. With none, the first
#           one to send /pair CODE (the code is in jarvisbot's log) becomes
#           the owner; everyone else gets one polite refusal.
#   api_endpoint (Telegram): a self-hosted Bot API server,
#           "http://host:port/bot%s/%s"; JARVIS_TELEGRAM_API_ENDPOINT wins.
#   api_base (Discord): a rate-limit proxy for REST and gateway discovery;
#           JARVIS_DISCORD_API_BASE wins.
#   webhook_url (Telegram): receive updates by webhook at this public https
#           address instead of long polling; JARVIS_TELEGRAM_WEBHOOK_URL wins.
#           Requests without the secret token jarvisbot registers are refused.
#   webhook_listen: the local address serving it (default 127.0.0.1:8443);
#           JARVIS_TELEGRAM_WEBHOOK_LISTEN wins. Replicas sharing one store
#           share the webhook URL and its secret; each serves the POSTs the
#           balancer sends it, and each update is answered once. Beyond
#           loopback it needs webhook_tls_cert and webhook_tls_key, or
#           webhook_behind_proxy: true when a reverse proxy on a private
#           network terminates TLS (JARVIS_TELEGRAM_WEBHOOK_BEHIND_PROXY=1).
#   shards (Discord): how many gateway sessions (shards) the bot runs, 1 by
#           default; replicas sharing one store share them out, and take
#           over the shards of one that stops. JARVIS_DISCORD_SHARDS wins.
telegram:
  owners: []
  api_endpoint: ""
  webhook_url: ""
  webhook_listen: ""
  webhook_tls_cert: ""
  webhook_tls_key: ""
  webhook_behind_proxy: false
discord:
  owners: []
  api_base: ""
  shards: 1

# approvals: how ask-tier tools wait for you.
#   ttl: how long a request waits before it is denied (default 10m).
#   approvers: who may decide, by platform user id ("telegram:123",
#              "discord:456"); empty means the owners. You at the console
#              always may.
#   channel: where the approval buttons go: empty for the chat the request
#              came from, or a chat such as "discord:123456789" (so a
#              Telegram conversation can be approved with Discord buttons).
approvals:
  ttl: 10m
  approvers: []
  channel: ""

# prices: what models cost, in US dollars per million tokens, for the usage
# figures (jarvisbot usage, /usage, the dashboard's Overview). jarvisbot ships
# the list prices of the common Anthropic and OpenAI models; an entry here
# replaces one of those or adds a model (a dated name such as
# gpt-4.1-2025-04-14 takes gpt-4.1's price). Models with no price show their
# tokens and "no price".
#   input, output, cache_read, cache_write: dollars per million tokens.
prices:
  # llama3.1: {input: 0, output: 0}
  # claude-sonnet-4-5: {input: 3, output: 15, cache_read: 0.3, cache_write: 3.75}

# budgets: what model calls may spend, for the whole installation and per
# agent, counted in your time zone. At 80% of a limit you get one message;
# at the limit that agent's turns stop before calling the model and your
# message waits, scheduled runs are skipped (recorded as "over budget"),
# and buttons in your main chat raise the limit for the period or allow
# one more turn. Limits set on the dashboard win over these.
#   daily, monthly: "$5" (US dollars, by the prices above), "2M tokens" or
#              "200000 tokens"; leave out (or none) for no limit.
#   agents: the same by agent name; an agent not made yet gets its limit
#              once it is.
budgets:
  # daily: $5
  # monthly: $50
  # agents:
  #   research: {daily: 2M tokens, monthly: $20}

# shutdown_timeout: when serve stops (end of console input, Ctrl-C, SIGTERM)
# it takes no new messages and lets answers in progress finish for this
# long; what is still running then is stopped and answered after the next
# start (default 30s; JARVIS_SHUTDOWN_TIMEOUT wins).
shutdown_timeout: 30s

# mcp_idle_timeout: an MCP server with no tool call for this long is
# stopped (its process ends, its memory is freed); its tools stay offered,
# and the next request that wants them starts it again, while the model
# thinks. A server whose tools were listed before starts that way too: on
# first use, not with serve. 0 keeps every server running from the start
# (default 10m; JARVIS_MCP_IDLE_TIMEOUT wins).
# mcp_idle_timeout: 10m

# mcp holds your routing hints for each MCP server, by server name, so the
# right server is offered for a message.
#   title: a human name for the server.
#   aliases: other words you use for it.
#   card: the usage card: words and short phrases that point at the server
#         ("repo", "pull request"); it replaces the card derived from its tools.
mcp:
  # github:
  #   title: GitHub
  #   aliases: [gh, repos]
  #   card: ["issues and pull requests", "code review"]

# tiers overrides the risk tier of a capability, by capability id
# (KIND:NAME, KIND one of plugin, mcp, skill, cli, builtin):
#   safe: runs; monitor: runs and is recorded; ask: waits for your approval.
tiers:
  # builtin:wiki: safe
  # mcp:github/merge_pull_request: ask
`

// Template returns the commented YAML that `jarvisbot init` writes.
func Template() []byte { return []byte(template) }

// WriteTemplate writes the template to path with mode 0600 in a 0700
// directory. It goes through a temporary file and a rename, so an
// interrupted init never leaves half a config behind.
func WriteTemplate(path string, force bool) (err error) {
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return jarvisbot.Errorf(jarvisbot.EINVALID, "config path %s is a directory: remove it, or set JARVIS_CONFIG to a file path", path)
	case err == nil && !force:
		return jarvisbot.Errorf(jarvisbot.ECONFLICT, "config file %s already exists, so init left it alone: edit it, or run `jarvisbot init --force` to replace it with the default template", path)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "cannot check the config file %s: %w", path, err)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "cannot create the config directory %s: %w", dir, err)
	}
	tmp, err := os.CreateTemp(dir, ".config-*.yaml") // CreateTemp uses mode 0600
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "cannot write the config file in %s: %w", dir, err)
	}
	defer func() { err = errors.Join(err, leftover.Remove(tmp.Name())) }() // gone already after the rename
	if _, err := tmp.Write(Template()); err != nil {
		_ = tmp.Close() // the write failed already; that error says what to do
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "cannot write the config file %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "cannot write the config file %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "cannot write the config file %s: %w", path, err)
	}
	return nil
}
