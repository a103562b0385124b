// Package jarvisbot holds the few domain types every layer shares: the
// application error with its code. Each edge (CLI exit status, chat reply,
// HTTP status) maps a Code to its own form, so no caller matches on strings.
package jarvisbot

import (
	"errors"
	"fmt"
)

// Code classifies an error for the edges that report it.
type Code string

// Error codes. Keep the set small: an edge needs to know what kind of
// failure happened, not every detail of it.
const (
	EINVALID     Code = "invalid"     // the caller's input is wrong; the message says how
	ENOTFOUND    Code = "not_found"   // the named thing does not exist
	ECONFLICT    Code = "conflict"    // the thing exists or is in a state that forbids the action
	EUNAVAILABLE Code = "unavailable" // a dependency (keyring, server) cannot be reached now
	EFORBIDDEN   Code = "forbidden"   // the caller may not do this (not an approver, not offered)
	EINTERNAL    Code = "internal"    // a bug or an unexpected failure
)

// Error is an application error: a code, a message a person can act on,
// and the cause it wraps.
type Error struct {
	Code    Code
	Message string
	Err     error
}

// Error returns the message, which is the whole sentence (Errorf folds the
// cause into it), or the cause's text when there is no message.
func (e *Error) Error() string {
	switch {
	case e.Message != "":
		return e.Message
	case e.Err != nil:
		return e.Err.Error()
	}
	return string(e.Code)
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error with the given code and a formatted message.
// A %w verb in format wraps its argument as the cause.
func Errorf(code Code, format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	return &Error{Code: code, Message: err.Error(), Err: errors.Unwrap(err)}
}

// ErrorCode returns the code of the first *Error in err's chain, EINTERNAL
// for any other non-nil error, and "" for nil.
func ErrorCode(err error) Code {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}
