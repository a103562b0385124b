package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// selfSigned writes a certificate for 127.0.0.1 and its key into dir and
// returns their paths and the pool that trusts it.
func selfSigned(t *testing.T, dir string) (certPath, keyPath string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "jarvisbot test"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certPath, keyPath = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certPath, keyPath, pool
}

// TestAppsOverTLSM4: with mcp_server.tls_cert and tls_key the endpoint
// speaks only HTTPS: an app that trusts the certificate lists its tools
// with its key, and a plain-HTTP request to the same port gets no MCP
// answer.
func TestAppsOverTLSM4(t *testing.T) {
	e := newTestEnv(t)
	certPath, keyPath, pool := selfSigned(t, t.TempDir())
	withTelegram(t, e)                  // a chat channel keeps serve up; the console would end with its empty input
	delete(e.vars, "JARVIS_MCP_LISTEN") // the config says where
	e.writeConfig(t, "mcp_server:\n  listen: 127.0.0.1:0\n  tls_cert: "+certPath+"\n  tls_key: "+keyPath+"\n")
	key := addApp(t, e, "secure", "read")
	out, stop := startServe(t, e)
	defer stop()
	waitOutput(t, out, "jarvisbot is ready")
	m := regexp.MustCompile(`url=(https://127\.0\.0\.1:(\d+)/mcp)`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("serve did not say it listens over https:\n%s", out.String())
	}
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
	c, err := client.NewStreamableHttpClient(m[1], transport.WithHTTPBasicClient(hc), transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + key}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "tls-app", Version: "1"}
	if _, err := c.Initialize(t.Context(), init); err != nil {
		t.Fatalf("initialize over TLS: %v\n%s", err, out.String())
	}
	tools, err := c.ListTools(t.Context(), mcp.ListToolsRequest{})
	if err != nil || len(tools.Tools) == 0 {
		t.Fatalf("tools over TLS: %v", err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://127.0.0.1:"+m[2]+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+key)
	if res, err := http.DefaultClient.Do(req); err == nil {
		defer res.Body.Close()
		if res.StatusCode < 400 {
			t.Errorf("plain HTTP to the TLS endpoint answered %s", res.Status)
		}
	}
}
