package secrets

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot"
)

// noEnv hides the real environment: no D-Bus session, no passphrase.
func noEnv(string) string { return "" }

func fixed(p string) func() (string, error) {
	return func() (string, error) { return p, nil }
}

func openFile(t *testing.T, dir, password string) *Keyring {
	t.Helper()
	k, err := Open(Options{Backend: BackendFile, Dir: dir, Password: fixed(password), Getenv: noEnv})
	if err != nil {
		t.Fatalf("Open(file, %s): %v", dir, err)
	}
	return k
}

func TestFileKeyringRoundTrip(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "keyring")
	k := openFile(t, dir, "correct horse")
	if k.Backend() != BackendFile {
		t.Errorf("Backend() = %q", k.Backend())
	}
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("keyring dir mode %o, want 700", fi.Mode().Perm())
	}

	steps := []struct {
		name  string
		op    func() error
		want  jarvisbot.Code
		names []string
	}{
		{"names when empty", func() error { return nil }, "", []string{}},
		{"get unset", func() error { _, err := k.Get(ctx, "telegram/token"); return err }, jarvisbot.ENOTFOUND, []string{}},
		{"delete unset", func() error { return k.Delete(ctx, "telegram/token") }, jarvisbot.ENOTFOUND, []string{}},
		{"set", func() error { return k.Set(ctx, "telegram/token", "one") }, "", []string{"telegram/token"}},
		{"set second", func() error { return k.Set(ctx, "anthropic.api_key", "two") }, "", []string{"anthropic.api_key", "telegram/token"}},
		{"overwrite", func() error { return k.Set(ctx, "telegram/token", "three") }, "", []string{"anthropic.api_key", "telegram/token"}},
		{"get overwritten", func() error {
			v, err := k.Get(ctx, "telegram/token")
			if err == nil && v != "three" {
				return errors.New("got an old value")
			}
			return err
		}, "", []string{"anthropic.api_key", "telegram/token"}},
		{"bad name", func() error { return k.Set(ctx, "has space", "x") }, jarvisbot.EINVALID, []string{"anthropic.api_key", "telegram/token"}},
		{"dot-dot name", func() error { return k.Set(ctx, "..", "x") }, jarvisbot.EINVALID, []string{"anthropic.api_key", "telegram/token"}},
		{"delete", func() error { return k.Delete(ctx, "telegram/token") }, "", []string{"anthropic.api_key"}},
		{"get deleted", func() error { _, err := k.Get(ctx, "telegram/token"); return err }, jarvisbot.ENOTFOUND, []string{"anthropic.api_key"}},
	}
	for _, s := range steps {
		if got := jarvisbot.ErrorCode(s.op()); got != s.want {
			t.Errorf("%s: code %q, want %q", s.name, got, s.want)
		}
		names, err := k.Names(ctx)
		if err != nil {
			t.Fatalf("%s: Names: %v", s.name, err)
		}
		if !reflect.DeepEqual(names, s.names) {
			t.Errorf("%s: Names() = %q, want %q", s.name, names, s.names)
		}
	}

	// A second process with the same passphrase reads what the first stored.
	again := openFile(t, dir, "correct horse")
	if v, err := again.Get(ctx, "anthropic.api_key"); err != nil || v != "two" {
		t.Errorf("reopened Get = %q, %v; want two", v, err)
	}
}

// TestKeyringDirTightenedX3: a keyring folder made earlier with mode 0755
// is 0700 once the keyring is opened.
func TestKeyringDirTightenedX3(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "keyring")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755) // whatever the umask
	openFile(t, dir, "pw")
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("keyring dir after open: %v %v, want mode 700", fi.Mode(), err)
	}
}

func TestValidName(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
	}{
		{"a", true},
		{"ANTHROPIC_API_KEY", true},
		{"plugin:github/oauth.token-2", true},
		{strings.Repeat("x", 128), true},
		{"", false},
		{strings.Repeat("x", 129), false},
		{"a b", false},
		{"a\nb", false},
		{"ключ", false},
		{".", false},
		{"..", false},
		{"a%2f", false},
	}
	for _, tt := range tests {
		err := ValidName(tt.name)
		if (err == nil) != tt.ok {
			t.Errorf("ValidName(%q) = %v, want ok=%v", tt.name, err, tt.ok)
		}
		if err != nil && jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
			t.Errorf("ValidName(%q) code %s", tt.name, jarvisbot.ErrorCode(err))
		}
	}
}

func TestMissingPassword(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	openFile(t, dir, "pw").Set(ctx, "x", "v")

	tests := []struct {
		name     string
		password func() (string, error)
	}{
		{"env unset", PasswordFromEnv(noEnv)},
		{"nil func", nil},
		{"empty string", fixed("")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, err := Open(Options{Backend: BackendFile, Dir: dir, Password: tt.password, Getenv: noEnv})
			if err != nil {
				t.Fatal(err)
			}
			for op, err := range map[string]error{
				"get": func() error { _, err := k.Get(ctx, "x"); return err }(),
				"set": k.Set(ctx, "y", "v"),
			} {
				if jarvisbot.ErrorCode(err) != jarvisbot.EUNAVAILABLE || !strings.Contains(err.Error(), EnvPassword) {
					t.Errorf("%s: error = %v, want EUNAVAILABLE naming %s", op, err, EnvPassword)
				}
			}
		})
	}
}

func TestPasswordFromEnv(t *testing.T) {
	p, err := PasswordFromEnv(func(k string) string {
		if k == EnvPassword {
			return "s3cret"
		}
		return ""
	})()
	if err != nil || p != "s3cret" {
		t.Errorf("PasswordFromEnv = %q, %v", p, err)
	}
}

// No secret value ever reaches an error message.
func TestWrongPasswordNeverLeaksValue(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	const value = "SUPER-DISTINCTIVE-VALUE-7f3a9c"
	const password = "right passphrase"
	good := openFile(t, dir, password)
	if err := good.Set(ctx, "api_key", value); err != nil {
		t.Fatal(err)
	}
	// A damaged file beside the good one.
	if err := os.WriteFile(filepath.Join(dir, "broken"), []byte("not a jwe "+value), 0o600); err != nil {
		t.Fatal(err)
	}

	bad := openFile(t, dir, "wrong passphrase")
	var errs []error
	_, err := bad.Get(ctx, "api_key")
	errs = append(errs, err)
	if jarvisbot.ErrorCode(err) != jarvisbot.EUNAVAILABLE || !strings.Contains(err.Error(), "wrong passphrase") || !strings.Contains(err.Error(), dir) {
		t.Errorf("wrong passphrase Get: %v, want EUNAVAILABLE saying the passphrase is wrong and naming %s", err, dir)
	}
	// Set must refuse too: it would otherwise write with the wrong passphrase.
	err = bad.Set(ctx, "other", "x")
	errs = append(errs, err)
	if jarvisbot.ErrorCode(err) != jarvisbot.EUNAVAILABLE {
		t.Errorf("wrong passphrase Set: %v, want EUNAVAILABLE", err)
	}
	if names, _ := good.Names(ctx); strings.Contains(strings.Join(names, ","), "other") {
		t.Errorf("Set with the wrong passphrase wrote a secret: %v", names)
	}

	_, err = good.Get(ctx, "broken")
	errs = append(errs, err)
	_, err = good.Get(ctx, "missing")
	errs = append(errs, err)
	errs = append(errs, good.Set(ctx, "bad name!", value))
	_, err = Open(Options{Backend: "vault", Password: fixed(value)})
	errs = append(errs, err)

	for i, err := range errs {
		if err == nil {
			t.Errorf("error %d: got nil, want an error", i)
			continue
		}
		for e := err; e != nil; e = errors.Unwrap(e) {
			if strings.Contains(e.Error(), value) {
				t.Errorf("error %d leaks the secret: %q", i, e)
			}
		}
	}
	if s := good.String(); strings.Contains(s, value) || strings.Contains(s, password) {
		t.Errorf("String() leaks: %s", s)
	}
}

func TestOpenChoosesBackend(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		opts    Options
		want    string
		wantErr jarvisbot.Code
	}{
		{"auto without a session bus is file", Options{Dir: dir, Getenv: func(k string) string {
			if k == "XDG_RUNTIME_DIR" {
				return dir // no bus socket there
			}
			return ""
		}}, BackendFile, ""},
		{"explicit file", Options{Backend: "FILE", Dir: dir, Getenv: noEnv}, BackendFile, ""},
		{"file without dir", Options{Backend: BackendFile, Getenv: noEnv}, "", jarvisbot.EINVALID},
		{"unknown backend", Options{Backend: "vault", Getenv: noEnv}, "", jarvisbot.EINVALID},
		{"file dir is a file", Options{Backend: BackendFile, Dir: filepath.Join(dir, "f"), Getenv: noEnv}, "", jarvisbot.EINVALID},
	}
	if err := os.WriteFile(filepath.Join(dir, "f"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, err := Open(tt.opts)
			if got := jarvisbot.ErrorCode(err); got != tt.wantErr {
				t.Fatalf("code %q (%v), want %q", got, err, tt.wantErr)
			}
			if err == nil && k.Backend() != tt.want {
				t.Errorf("Backend() = %q, want %q", k.Backend(), tt.want)
			}
		})
	}
}

func TestSessionBusReachable(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bus"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		env  map[string]string
		want bool
	}{
		{"nothing", nil, false},
		{"address", map[string]string{"DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/user/1/bus"}, true},
		{"autolaunch is not a bus", map[string]string{"DBUS_SESSION_BUS_ADDRESS": "autolaunch:"}, false},
		{"runtime dir without socket", map[string]string{"XDG_RUNTIME_DIR": t.TempDir()}, false},
		{"bus that is a plain file", map[string]string{"XDG_RUNTIME_DIR": dir}, false},
	}
	for _, tt := range tests {
		got := sessionBusReachable(func(k string) string { return tt.env[k] })
		if got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestConcurrentUse(t *testing.T) {
	ctx := context.Background()
	k := openFile(t, t.TempDir(), "pw")
	done := make(chan error)
	for i := 0; i < 8; i++ {
		go func(i int) {
			name := "k" + string(rune('a'+i))
			if err := k.Set(ctx, name, "v"); err != nil {
				done <- err
				return
			}
			_, err := k.Get(ctx, name)
			done <- err
		}(i)
	}
	for i := 0; i < 8; i++ {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}
