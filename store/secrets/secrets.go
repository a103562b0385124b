// Package secrets keeps the owner's secrets (API keys, bot tokens, plugin
// sign-ins) in an OS keyring, never in the config file or the database
// (ST1). It wraps github.com/99designs/keyring behind the small Store
// interface the rest of jarvisbot consumes.
//
// On a desktop the Secret Service holds them; on a headless server the
// encrypted file backend does, one 0600 file per secret under Options.Dir,
// unlocked with a passphrase from JARVIS_KEYRING_PASSWORD. Secret values
// never appear in an error, a log line or a panic from this package.
package secrets

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/99designs/keyring"

	"github.com/jarvisbot/jarvisbot"
)

// Store holds named secrets.
type Store interface {
	Get(ctx context.Context, name string) (string, error) // ENOTFOUND if unset
	Set(ctx context.Context, name, value string) error
	Delete(ctx context.Context, name string) error // ENOTFOUND if unset
	Names(ctx context.Context) ([]string, error)   // sorted
}

// Backend names, as written in config (keyring.backend).
const (
	BackendFile          = "file"
	BackendSecretService = "secret-service"
	BackendKeyctl        = "keyctl"
	BackendPass          = "pass"
	BackendKWallet       = "kwallet"
)

// EnvPassword holds the file keyring's passphrase.
const EnvPassword = "JARVIS_KEYRING_PASSWORD"

// DefaultService is the keyring service name when Options.Service is empty.
const DefaultService = "jarvisbot"

// Options selects and configures a keyring.
type Options struct {
	Backend  string                 // "" = auto, or file, secret-service, keyctl, pass, kwallet
	Dir      string                 // file backend directory (created, or tightened, to 0700)
	Password func() (string, error) // file backend passphrase
	Service  string                 // keyring service name, default "jarvisbot"
	// Getenv is consulted by the automatic choice to find a D-Bus session;
	// nil means os.Getenv. Tests set it so they never see the real desktop.
	Getenv func(string) string
}

// Keyring is an open keyring. It implements Store and is safe for
// concurrent use: the library's file backend caches the passphrase without
// locking, so every call is serialised here.
type Keyring struct {
	mu       sync.Mutex
	ring     keyring.Keyring
	backend  string
	dir      string // file backend only
	verified bool   // file backend: the passphrase opened an existing secret
}

var _ Store = (*Keyring)(nil)

// Open opens the keyring opts describe. For the file backend it only
// creates the directory; the passphrase is asked for at the first call that
// needs it.
func Open(opts Options) (*Keyring, error) {
	if opts.Service == "" {
		opts.Service = DefaultService
	}
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	backend := strings.ToLower(strings.TrimSpace(opts.Backend))
	switch backend {
	case "", "auto":
		// The Secret Service only when a session bus is already there:
		// otherwise godbus would try to start one (dbus-launch), leaving a
		// stray daemon on a headless server for secrets it cannot keep.
		if sessionBusReachable(opts.Getenv) {
			if k, err := open(BackendSecretService, opts); err == nil {
				return k, nil
			}
		}
		return open(BackendFile, opts)
	case BackendFile, BackendSecretService, BackendKeyctl, BackendPass, BackendKWallet:
		return open(backend, opts)
	}
	return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "unknown keyring backend %q: use file, secret-service, keyctl, pass or kwallet, or leave it empty to choose automatically", opts.Backend)
}

// sessionBusReachable reports whether a D-Bus session bus is announced in
// the environment or has its socket in the runtime directory.
func sessionBusReachable(getenv func(string) string) bool {
	if a := getenv("DBUS_SESSION_BUS_ADDRESS"); a != "" && a != "autolaunch:" {
		return true
	}
	if rt := getenv("XDG_RUNTIME_DIR"); rt != "" {
		if fi, err := os.Stat(filepath.Join(rt, "bus")); err == nil && fi.Mode()&fs.ModeSocket != 0 {
			return true
		}
	}
	return false
}

func open(backend string, opts Options) (*Keyring, error) {
	cfg := keyring.Config{
		AllowedBackends:         []keyring.BackendType{keyring.BackendType(backend)},
		ServiceName:             opts.Service,
		LibSecretCollectionName: opts.Service,
		KeyCtlScope:             "user",
		KWalletAppID:            opts.Service,
		KWalletFolder:           opts.Service,
		PassPrefix:              opts.Service,
	}
	k := &Keyring{backend: backend}
	if backend == BackendFile {
		if opts.Dir == "" {
			return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "the file keyring needs a directory: set keyring.dir or data_dir in the config")
		}
		dir, err := filepath.Abs(opts.Dir)
		if err != nil {
			return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "keyring directory %s: %w", opts.Dir, err)
		}
		if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
			return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "keyring path %s is not a directory: remove it or set keyring.dir", dir)
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "cannot create the keyring directory %s: %w", dir, err)
		}
		// A folder made earlier with looser modes is tightened: the files
		// are encrypted, but their names and number are the owner's too.
		if fi, err := os.Stat(dir); err == nil && fi.Mode().Perm()&0o077 != 0 {
			if err := os.Chmod(dir, fi.Mode().Perm()&0o700); err != nil {
				return nil, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "the keyring directory %s can be read by others and cannot be made private: %w; run chmod 700 %s", dir, err, dir)
			}
		}
		k.dir = dir
		cfg.FileDir = dir
		password := opts.Password
		cfg.FilePasswordFunc = func(string) (string, error) {
			if password == nil {
				return "", missingPassword()
			}
			p, err := password()
			if err != nil {
				return "", err
			}
			if p == "" {
				return "", missingPassword()
			}
			return p, nil
		}
	}
	ring, err := keyring.Open(cfg)
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "the %s keyring is not available on this machine (%v; it %s): choose another with keyring.backend or JARVIS_KEYRING_BACKEND, for example file",
			backend, err, backendNeeds[backend])
	}
	k.ring = ring
	return k, nil
}

// backendNeeds says what each backend depends on, for the error above.
var backendNeeds = map[string]string{
	BackendFile:          "needs a writable directory",
	BackendSecretService: "needs a D-Bus session running a Secret Service such as GNOME Keyring",
	BackendKWallet:       "needs a D-Bus session running KWallet",
	BackendKeyctl:        "needs the kernel keyring, which some sandboxes block",
	BackendPass:          "needs pass and gpg installed and initialised",
}

// PasswordFromEnv returns a passphrase function reading
// JARVIS_KEYRING_PASSWORD through getenv at each call.
func PasswordFromEnv(getenv func(string) string) func() (string, error) {
	return func() (string, error) {
		if p := getenv(EnvPassword); p != "" {
			return p, nil
		}
		return "", missingPassword()
	}
}

func missingPassword() error {
	return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE,
		"the file keyring is locked: set %s to its passphrase in the environment jarvisbot runs in (choose one the first time), or pick another backend with JARVIS_KEYRING_BACKEND", EnvPassword)
}

// Backend returns the backend in use: file, secret-service, keyctl, pass or kwallet.
func (k *Keyring) Backend() string { return k.backend }

// Dir returns the file backend's directory, "" for other backends.
func (k *Keyring) Dir() string { return k.dir }

// where names the keyring in messages.
func (k *Keyring) where() string {
	if k.dir != "" {
		return "the file keyring at " + k.dir
	}
	return "the " + k.backend + " keyring"
}

// ValidName reports, as an EINVALID error, why name cannot name a secret:
// 1 to 128 of A-Z a-z 0-9 _ . : / -, and not "." or ".." (the file backend
// turns names into file names).
func ValidName(name string) error {
	if name == "" || len(name) > 128 {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "secret name %.40q must be 1 to 128 characters long", name)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_.:/-", r)) {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "secret name %q contains %q: use letters, digits and _ . : / -", name, r)
		}
	}
	if name == "." || name == ".." {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "secret name %q is reserved: choose another", name)
	}
	return nil
}

// Get returns the named secret's value.
func (k *Keyring) Get(ctx context.Context, name string) (string, error) {
	if err := usable(ctx, name); err != nil {
		return "", err
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	item, err := k.ring.Get(name)
	if err != nil {
		return "", k.readError(name, err)
	}
	if k.backend == BackendFile {
		k.verified = true
	}
	return string(item.Data), nil
}

// usable says why a call about the secret name cannot go ahead: the name
// is not one a secret may have, or ctx is done.
func usable(ctx context.Context, name string) error {
	if err := ValidName(name); err != nil {
		return err
	}
	return ctx.Err()
}

// Set stores value under name, replacing any previous value.
func (k *Keyring) Set(ctx context.Context, name, value string) error {
	if err := usable(ctx, name); err != nil {
		return err
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if err := k.verify(); err != nil {
		return err
	}
	err := k.ring.Set(keyring.Item{
		Key:         name,
		Data:        []byte(value),
		Label:       DefaultService + ": " + name,
		Description: "jarvisbot secret",
	})
	if err != nil {
		// The library's errors carry no item data; wrapping them is safe.
		if code := jarvisbot.ErrorCode(err); code != jarvisbot.EINTERNAL {
			return err // our own passphrase error
		}
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "cannot store secret %s in %s: %w", name, k.where(), err)
	}
	return nil
}

// Delete removes the named secret.
func (k *Keyring) Delete(ctx context.Context, name string) error {
	if err := usable(ctx, name); err != nil {
		return err
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	// Backends disagree on what removing a missing key returns, so ask first.
	names, err := k.names()
	if err != nil {
		return err
	}
	if !slices.Contains(names, name) {
		return jarvisbot.Errorf(jarvisbot.ENOTFOUND, "secret %s is not set in %s", name, k.where())
	}
	if err := k.ring.Remove(name); err != nil {
		if errors.Is(err, keyring.ErrKeyNotFound) || errors.Is(err, fs.ErrNotExist) {
			return jarvisbot.Errorf(jarvisbot.ENOTFOUND, "secret %s is not set in %s", name, k.where())
		}
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "cannot delete secret %s from %s: %w", name, k.where(), err)
	}
	return nil
}

// Names returns the names of the stored secrets, sorted.
func (k *Keyring) Names(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.names()
}

func (k *Keyring) names() ([]string, error) {
	keys, err := k.ring.Keys()
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "cannot list secrets in %s: %w", k.where(), err)
	}
	// Other files in the directory (editor backups, a stray .DS_Store) and
	// other programs' keys are not ours to show.
	out := make([]string, 0, len(keys))
	for _, key := range keys {
		if ValidName(key) == nil {
			out = append(out, key)
		}
	}
	sort.Strings(out)
	return out, nil
}

// verify makes sure the file keyring's passphrase opens the secrets already
// there before anything is written with it: the library would otherwise
// encrypt new secrets with a mistyped passphrase beside the old ones.
func (k *Keyring) verify() error {
	if k.backend != BackendFile || k.verified {
		return nil
	}
	names, err := k.names()
	if err != nil {
		return err
	}
	// One damaged file must not lock the keyring, so a few are tried; each
	// try costs a key derivation, so not all of them.
	var first error
	for i, name := range names {
		if i == 3 {
			break
		}
		_, err := k.ring.Get(name)
		if err == nil {
			k.verified = true
			return nil
		}
		if errors.Is(err, keyring.ErrKeyNotFound) {
			continue // removed meanwhile
		}
		if first == nil {
			first = k.readError(name, err)
		}
	}
	if first != nil {
		return first
	}
	k.verified = true // nothing stored yet: this passphrase becomes the keyring's
	return nil
}

// readError explains a failed read without ever including the item: a
// JSON error from decoding a decrypted payload could quote part of it.
func (k *Keyring) readError(name string, err error) error {
	var je *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.Is(err, keyring.ErrKeyNotFound):
		return jarvisbot.Errorf(jarvisbot.ENOTFOUND, "secret %s is not set in %s: store it with `jarvisbot secrets set %s`", name, k.where(), name)
	case jarvisbot.ErrorCode(err) != jarvisbot.EINTERNAL:
		return err // our own passphrase error
	case errors.As(err, &je), errors.As(err, &te):
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "secret %s in %s is damaged: set it again", name, k.where())
	case k.backend == BackendFile:
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE,
			"cannot decrypt secret %s in %s (%v): %s holds the wrong passphrase, or the file is damaged",
			name, k.where(), err, EnvPassword)
	}
	return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "cannot read secret %s from %s: %w", name, k.where(), err)
}

// String describes the keyring without any secret, for logs.
func (k *Keyring) String() string { return fmt.Sprintf("secrets.Keyring(%s)", k.where()) }
