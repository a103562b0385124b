package google

import (
	"encoding/base64"
	"fmt"
	"mime"
	"mime/quotedprintable"
	"net/mail"
	"slices"
	"strings"
	"time"

	"golang.org/x/net/html/charset"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/plugins/builtins/native"
)

// outgoing is a mail the tools send or save as a draft.
type outgoing struct {
	from                  string
	to, cc                []*mail.Address
	subject, body         string
	inReplyTo, references string
}

// raw is the mail as RFC 5322 text, base64url for Gmail's raw field:
// UTF-8 throughout, headers that need it in encoded words, the body
// quoted-printable with CRLF line ends.
func (o outgoing) raw(now time.Time) string {
	var b strings.Builder
	h := func(k, v string) {
		if v != "" {
			b.WriteString(k + ": " + v + "\r\n")
		}
	}
	h("From", (&mail.Address{Address: o.from}).String())
	h("To", join(o.to))
	h("Cc", join(o.cc))
	h("Subject", mime.QEncoding.Encode("utf-8", o.subject))
	h("Date", now.Format(time.RFC1123Z))
	h("In-Reply-To", o.inReplyTo)
	h("References", o.references)
	h("MIME-Version", "1.0")
	h("Content-Type", "text/plain; charset=UTF-8")
	h("Content-Transfer-Encoding", "quoted-printable")
	b.WriteString("\r\n")
	w := quotedprintable.NewWriter(&b)                               // turns the body's line ends into CRLF
	_, _ = w.Write([]byte(strings.ReplaceAll(o.body, "\r\n", "\n"))) // a strings.Builder does not fail
	_ = w.Close()
	return base64.URLEncoding.EncodeToString([]byte(b.String()))
}

// recipients names whom o goes to, for the tool's answer.
func (o outgoing) recipients() string {
	s := plain(o.to)
	if len(o.cc) > 0 {
		s += " (cc " + plain(o.cc) + ")"
	}
	return s
}

func join(as []*mail.Address) string {
	var parts []string
	for _, a := range as {
		parts = append(parts, a.String())
	}
	return strings.Join(parts, ", ")
}

// plain lists addresses as a person writes them, without encoded words.
func plain(as []*mail.Address) string {
	var parts []string
	for _, a := range as {
		if a.Name != "" {
			parts = append(parts, a.Name+" <"+a.Address+">")
		} else {
			parts = append(parts, a.Address)
		}
	}
	return strings.Join(parts, ", ")
}

// oneLine refuses a line break in a header value: it would end the header
// and let the text after it add headers (Bcc:) of its own.
func oneLine(field, v string) error {
	if strings.ContainsAny(v, "\r\n") {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "%s must be on one line: a line break there would start new mail headers", field)
	}
	return nil
}

// addresses reads the model's comma-separated recipients.
func addresses(field, s string) ([]*mail.Address, error) {
	if err := oneLine(field, s); err != nil {
		return nil, err
	}
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	as, err := mail.ParseAddressList(s)
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "%s: %q is not a list of mail addresses (%v); write them like Ann Lee <ann@example.com>, bob@example.com", field, s, err)
	}
	return as, nil
}

// headerAddresses reads an address header of a received mail.
func headerAddresses(h header, name string) ([]*mail.Address, error) {
	v := h.raw(name)
	if strings.TrimSpace(v) == "" {
		return nil, nil
	}
	p := mail.AddressParser{WordDecoder: &mime.WordDecoder{CharsetReader: charset.NewReaderLabel}}
	as, err := p.ParseList(v)
	if err != nil {
		return nil, fmt.Errorf("its %s header %q holds no address I can read: %w", name, v, err)
	}
	return as, nil
}

func sameAddress(a, b *mail.Address) bool { return strings.EqualFold(a.Address, b.Address) }

// replyTo is the answer to a received mail with headers h, from self:
// to its Reply-To or sender (or, for the owner's own mail, to its
// recipients), with all others but the owner in Cc when all is set, in
// its thread by In-Reply-To and References.
func replyTo(h header, self string, all bool) (outgoing, error) {
	var lists [4][]*mail.Address
	for i, name := range []string{"From", "Reply-To", "To", "Cc"} {
		as, err := headerAddresses(h, name)
		if err != nil {
			return outgoing{}, err
		}
		lists[i] = as
	}
	from, replyTo, to, cc := lists[0], lists[1], lists[2], lists[3]
	me := &mail.Address{Address: self}
	var primary []*mail.Address
	switch {
	case len(from) > 0 && sameAddress(from[0], me):
		primary = to // the owner answers their own mail: to the same people again
	case len(replyTo) > 0:
		primary = replyTo
	default:
		primary = from
	}
	if len(primary) == 0 {
		return outgoing{}, fmt.Errorf("it names no one to answer")
	}
	out := outgoing{to: primary}
	if all {
		for _, a := range slices.Concat(to, cc) {
			seen := func(b *mail.Address) bool { return sameAddress(a, b) }
			if !sameAddress(a, me) && !slices.ContainsFunc(out.to, seen) && !slices.ContainsFunc(out.cc, seen) {
				out.cc = append(out.cc, a)
			}
		}
	}
	out.subject = native.OneLine(h.get("Subject"))
	if !strings.HasPrefix(strings.ToLower(out.subject), "re:") {
		out.subject = strings.TrimSpace("Re: " + out.subject)
	}
	// Folded or hostile values must not break the headers they go into.
	if id := native.OneLine(h.raw("Message-ID")); id != "" {
		out.inReplyTo = id
		out.references = strings.TrimSpace(native.OneLine(h.raw("References")) + " " + id)
	}
	return out, nil
}
