package store

import "context"

// Shared keeps small values every process on one store must agree on,
// such as the salt the Telegram webhook's secret token is derived from
// (ST2). They are not secrets on their own: a secret is derived from
// one together with a secret kept in the keyring.
type Shared interface {
	// SharedValue returns the value stored under name; when there is none
	// it stores make's result first. Of several processes asking at once,
	// one value wins and every caller gets it.
	SharedValue(ctx context.Context, name string, make func() (string, error)) (string, error)
}
