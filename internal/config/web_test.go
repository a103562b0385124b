package config

import (
	"path/filepath"
	"strings"
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
			path := writeFile(t, filepath.Join(dir, tt.name, "config.yaml"), tt.content)
			e := map[string]string{"JARVIS_CONFIG": path, "HOME": dir}
			for k, v := range tt.env {
				e[k] = v
			}
			cfg, err := Load(env(e))
			if tt.err != nil {
				if err == nil {
					t.Fatal("Load succeeded")
				}
				for _, w := range tt.err {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not mention %q", err, w)
					}
				}
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
