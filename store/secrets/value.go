package secrets

import (
	"io"
	"strings"

	"github.com/jarvisbot/jarvisbot"
)

// MaxValueLen bounds a value read for the keyring: keys and tokens are
// short, and a service-account file is a few kilobytes; more is a wrong
// pipe.
const MaxValueLen = 64 << 10

// ReadValue reads the value of the secret name from r until EOF (values
// come on stdin, never in arguments, which land in shell history and ps),
// dropping the one line end that echo and editors add. An empty value or
// one over MaxValueLen is refused.
func ReadValue(r io.Reader, name string) (string, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxValueLen+1))
	if err != nil {
		return "", jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "cannot read the value of %s from stdin: %w", name, err)
	}
	if len(b) > MaxValueLen {
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, "the value of %s on stdin is longer than %d bytes: is it the right input?", name, MaxValueLen)
	}
	v := string(b)
	if s, ok := strings.CutSuffix(v, "\r\n"); ok {
		v = s
	} else {
		v = strings.TrimSuffix(v, "\n")
	}
	if v == "" {
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, "refusing to store an empty value for %s: pipe the value on stdin, for example: jarvisbot secrets set %s < file", name, name)
	}
	return v, nil
}
