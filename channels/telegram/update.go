package telegram

// The parts of Telegram's updates and answers that jarvisbot reads. The
// library's Update and Message types describe every kind of message
// Telegram has (some 80 fields on a message, many of them types of their
// own), and encoding/json keeps a table of the fields of every struct type
// it has decoded for as long as the process lives: decoding one text
// message and one sent message's answer into them keeps ~177 KB of heap,
// into these ~27 KB. And a field jarvisbot does not read can no longer
// fail an update by a type Telegram changed.

// update is one of getUpdates' updates, or a webhook's body.
type update struct {
	UpdateID      int            `json:"update_id"`
	Message       *message       `json:"message"`
	CallbackQuery *callbackQuery `json:"callback_query"`
}

type message struct {
	MessageID int         `json:"message_id"`
	From      *user       `json:"from"`
	Chat      *chat       `json:"chat"`
	Text      string      `json:"text"`
	Caption   string      `json:"caption"`
	Photo     []photoSize `json:"photo"`
	Document  *document   `json:"document"`
	Voice     *voice      `json:"voice"`
	Audio     *audio      `json:"audio"`
}

type user struct {
	ID        int64  `json:"id"`
	FirstName string `json:"first_name"`
	LastName  string `json:"last_name"`
	UserName  string `json:"username"`
}

type chat struct {
	ID int64 `json:"id"`
}

type photoSize struct {
	FileID   string `json:"file_id"`
	Width    int    `json:"width"`
	Height   int    `json:"height"`
	FileSize int    `json:"file_size"`
}

type document struct {
	FileID   string `json:"file_id"`
	FileName string `json:"file_name"`
	MimeType string `json:"mime_type"`
	FileSize int64  `json:"file_size"`
}

type voice struct {
	FileID   string `json:"file_id"`
	Duration int    `json:"duration"`
	MimeType string `json:"mime_type"`
	FileSize int64  `json:"file_size"`
}

type audio struct {
	FileID   string `json:"file_id"`
	Duration int    `json:"duration"`
	MimeType string `json:"mime_type"`
	FileSize int64  `json:"file_size"`
	FileName string `json:"file_name"`
}

type callbackQuery struct {
	ID      string   `json:"id"`
	From    *user    `json:"from"`
	Message *message `json:"message"`
	Data    string   `json:"data"`
}

// sent is what jarvisbot reads of the message a send method answers with.
type sent struct {
	MessageID int `json:"message_id"`
}
