package config

import (
	"testing"
)

// TestWebMetricsAndProxy: /metrics is off unless web.metrics or
// JARVIS_WEB_METRICS turns it on; behind_proxy lets the dashboard listen
// beyond loopback in clear text, a proxy terminating TLS in front
// (issue 20).
func TestWebMetricsAndProxy(t *testing.T) {
	tests := []struct {
		name        string
		content     string
		env         map[string]string
		metrics     bool
		behindProxy bool
		err         []string
	}{
		{name: "off by default"},
		{name: "on in the file", content: "web:\n  metrics: true\n", metrics: true},
		{name: "on by env", env: map[string]string{"JARVIS_WEB_METRICS": "1"}, metrics: true},
		{name: "env turns the file's off", content: "web:\n  metrics: true\n", env: map[string]string{"JARVIS_WEB_METRICS": "0"}},
		{name: "env not a switch", env: map[string]string{"JARVIS_WEB_METRICS": "please"}, err: []string{"JARVIS_WEB_METRICS", "1 (on) or 0 (off)"}},
		{name: "behind a proxy beyond loopback", content: "web:\n  listen: 0.0.0.0:8780\n  behind_proxy: true\n", behindProxy: true},
		{name: "behind a proxy by env", env: map[string]string{"JARVIS_WEB_LISTEN": "0.0.0.0:8780", "JARVIS_WEB_BEHIND_PROXY": "true"}, behindProxy: true},
		{name: "beyond loopback names behind_proxy", content: "web:\n  listen: 0.0.0.0:8780\n", err: []string{"tls_cert", "behind_proxy"}},
		{name: "behind a proxy still wants both TLS files", content: "web:\n  listen: 0.0.0.0:8780\n  behind_proxy: true\n  tls_cert: c.pem\n", err: []string{"both tls_cert and tls_key"}},
	}
	dir := t.TempDir()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, _, err := loadIn(t, dir, tt.name, tt.content, tt.env)
			if tt.err != nil {
				if err == nil {
					t.Fatal("Load succeeded")
				}
				mentions(t, err, tt.err...)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Web.Metrics != tt.metrics || cfg.Web.BehindProxy != tt.behindProxy {
				t.Errorf("metrics %v, behind_proxy %v; want %v, %v", cfg.Web.Metrics, cfg.Web.BehindProxy, tt.metrics, tt.behindProxy)
			}
		})
	}
}

// TestTelegramWebhookListenerCH1: the webhook listener follows the
// dashboard's rule: beyond loopback only with TLS or behind a proxy, and
// the webhook URL Telegram posts to is https, never http://.
func TestTelegramWebhookListenerCH1(t *testing.T) {
	const url = "webhook_url: https://jarvis.example.org/telegram\n"
	tests := []struct {
		name    string
		content string
		env     map[string]string
		err     []string
	}{
		{name: "no webhook, any listen", content: "telegram:\n  webhook_listen: 0.0.0.0:8443\n"},
		{name: "https on loopback", content: "telegram:\n  " + url},
		{name: "http:// refused", content: "telegram:\n  webhook_url: http://jarvis.example.org/telegram\n", err: []string{"webhook_url", "https"}},
		{name: "http:// by env refused", env: map[string]string{"JARVIS_TELEGRAM_WEBHOOK_URL": "http://127.0.0.1:8443/telegram"}, err: []string{"JARVIS_TELEGRAM_WEBHOOK_URL", "https"}},
		{name: "no scheme refused", content: "telegram:\n  webhook_url: jarvis.example.org/telegram\n", err: []string{"https"}},
		{name: "beyond loopback in clear refused", content: "telegram:\n  " + url + "  webhook_listen: 0.0.0.0:8443\n",
			err: []string{"webhook_listen", "webhook_tls_cert", "webhook_behind_proxy"}},
		{name: "beyond loopback by env refused", content: "telegram:\n  " + url, env: map[string]string{"JARVIS_TELEGRAM_WEBHOOK_LISTEN": "0.0.0.0:8443"},
			err: []string{"JARVIS_TELEGRAM_WEBHOOK_LISTEN", "JARVIS_TELEGRAM_WEBHOOK_BEHIND_PROXY"}},
		{name: "beyond loopback with TLS", content: "telegram:\n  " + url + "  webhook_listen: 0.0.0.0:8443\n  webhook_tls_cert: c.pem\n  webhook_tls_key: k.pem\n"},
		{name: "beyond loopback behind a proxy", content: "telegram:\n  " + url + "  webhook_listen: 0.0.0.0:8443\n  webhook_behind_proxy: true\n"},
		{name: "behind a proxy by env", content: "telegram:\n  " + url,
			env: map[string]string{"JARVIS_TELEGRAM_WEBHOOK_LISTEN": "0.0.0.0:8443", "JARVIS_TELEGRAM_WEBHOOK_BEHIND_PROXY": "1"}},
		{name: "one TLS file", content: "telegram:\n  " + url + "  webhook_tls_cert: c.pem\n", err: []string{"both webhook_tls_cert and webhook_tls_key"}},
		{name: "listen off with a URL", content: "telegram:\n  " + url + "  webhook_listen: \"off\"\n", err: []string{"long polling"}},
	}
	dir := t.TempDir()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := loadIn(t, dir, tt.name, tt.content, tt.env)
			if tt.err == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil {
				t.Fatal("Load succeeded")
			}
			mentions(t, err, tt.err...)
		})
	}
}
