package google

import (
	"context"
	"net/url"
	"strconv"
)

// The Gmail API v1 calls the Gmail tools make, for the signed-in user
// ("me"), and the parts of its JSON they read and write. Fields are in the
// order of their JSON names, as in Google's own client, so a request's
// body is the same bytes.

// message is a mail as Gmail gives it: ids, labels, a snippet, when it
// arrived, and its MIME tree (Payload), with as many headers and bodies as
// the format asked for.
type message struct {
	ID       string   `json:"id"`
	LabelIDs []string `json:"labelIds"`
	// InternalDate is when Gmail received it, in Unix milliseconds.
	InternalDate int64        `json:"internalDate,string"`
	Payload      *messagePart `json:"payload"`
	Snippet      string       `json:"snippet"`
	ThreadID     string       `json:"threadId"`
}

// messagePart is one node of a message's MIME tree.
type messagePart struct {
	Body     *messagePartBody `json:"body"`
	Filename string           `json:"filename"`
	Headers  []messageHeader  `json:"headers"`
	MimeType string           `json:"mimeType"`
	Parts    []*messagePart   `json:"parts"`
}

// messagePartBody is a leaf part's content: Data in base64url when it is
// small enough to come inline, and its size in bytes.
type messagePartBody struct {
	Data string `json:"data"`
	Size int64  `json:"size"`
}

type messageHeader struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// rawMessage is a mail the tools send or save: the RFC 5322 text in
// base64url, and the conversation it belongs to, "" for a new one.
type rawMessage struct {
	Raw      string `json:"raw,omitempty"`
	ThreadID string `json:"threadId,omitempty"`
}

// draft is a draft saved in the owner's mail.
type draft struct {
	ID      string      `json:"id,omitempty"`
	Message *rawMessage `json:"message,omitempty"`
}

// messageList is one page of messages.list: the ids only.
type messageList struct {
	Messages []struct {
		ID       string `json:"id"`
		ThreadID string `json:"threadId"`
	} `json:"messages"`
	NextPageToken string `json:"nextPageToken"`
}

// thread is a conversation with its messages.
type thread struct {
	ID       string     `json:"id"`
	Messages []*message `json:"messages"`
}

// label is a Gmail label: a system one (INBOX, UNREAD) or the owner's
// ("user").
type label struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Type string `json:"type"`
}

// labelChange adds and removes labels of a message or a thread.
type labelChange struct {
	AddLabelIDs    []string `json:"addLabelIds,omitempty"`
	RemoveLabelIDs []string `json:"removeLabelIds,omitempty"`
}

// gmailAPI is Gmail for the signed-in user.
type gmailAPI struct{ api }

func (o Options) gmailAPI() gmailAPI {
	return gmailAPI{o.api("gmail/v1/", gmailBase)}
}

// me is the signed-in user in Gmail's paths.
const me = "users/me/"

// listMessages lists the ids of the messages matching the search q,
// newest first; pageToken "" for the first page.
func (g gmailAPI) listMessages(ctx context.Context, q string, maxResults int, pageToken string) (*messageList, error) {
	v := url.Values{"q": {q}, "maxResults": {strconv.Itoa(maxResults)}}
	if pageToken != "" {
		v.Set("pageToken", pageToken)
	}
	return request[messageList](ctx, g.api, "GET", me+"messages", v, nil)
}

// getMessage reads a message in format "full" (its MIME tree with
// bodies) or "metadata" (headers only, just those named).
func (g gmailAPI) getMessage(ctx context.Context, id, format string, headers ...string) (*message, error) {
	v := url.Values{"format": {format}}
	if len(headers) > 0 {
		v["metadataHeaders"] = headers
	}
	return request[message](ctx, g.api, "GET", me+"messages/"+pathEscape(id), v, nil)
}

// getThread reads a conversation with its messages in full.
func (g gmailAPI) getThread(ctx context.Context, id string) (*thread, error) {
	return request[thread](ctx, g.api, "GET", me+"threads/"+pathEscape(id), url.Values{"format": {"full"}}, nil)
}

// send sends m and returns the sent message's ids.
func (g gmailAPI) send(ctx context.Context, m *rawMessage) (*message, error) {
	return request[message](ctx, g.api, "POST", me+"messages/send", nil, m)
}

func (g gmailAPI) createDraft(ctx context.Context, d *draft) (*draft, error) {
	return request[draft](ctx, g.api, "POST", me+"drafts", nil, d)
}

// address is the signed-in user's mail address.
func (g gmailAPI) address(ctx context.Context) (string, error) {
	p, err := request[struct {
		EmailAddress string `json:"emailAddress"`
	}](ctx, g.api, "GET", me+"profile", nil, nil)
	if err != nil {
		return "", err
	}
	return p.EmailAddress, nil
}

func (g gmailAPI) labels(ctx context.Context) ([]label, error) {
	ls, err := request[struct {
		Labels []label `json:"labels"`
	}](ctx, g.api, "GET", me+"labels", nil, nil)
	if err != nil {
		return nil, err
	}
	return ls.Labels, nil
}

// modifyMessage changes a message's labels.
func (g gmailAPI) modifyMessage(ctx context.Context, id string, c *labelChange) error {
	return g.do(ctx, "POST", me+"messages/"+pathEscape(id)+"/modify", nil, c, nil)
}

// modifyThread changes the labels of every message in a conversation.
func (g gmailAPI) modifyThread(ctx context.Context, id string, c *labelChange) error {
	return g.do(ctx, "POST", me+"threads/"+pathEscape(id)+"/modify", nil, c, nil)
}
