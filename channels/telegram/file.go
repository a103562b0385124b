package telegram

import (
	"strconv"

	"github.com/jarvisbot/jarvisbot/channels"
	"github.com/jarvisbot/jarvisbot/internal/sizelimit"
)

// maxBotFile is the largest file Telegram lets a bot download (getFile).
const maxBotFile = 20 << 20

// file is the photo or document a message carries (CH4), nil for none.
// Of a photo's sizes the largest that a bot may download is taken: the
// model's limit is smaller still, and the desk scales it down.
func (b *Bot) file(m *message) *channels.File {
	where := "message " + strconv.Itoa(m.MessageID)
	if m.Chat != nil {
		where += " in " + id(m.Chat.ID)
	}
	switch {
	case len(m.Photo) > 0:
		best := -1
		for i, p := range m.Photo {
			if p.FileSize > maxBotFile {
				continue
			}
			if best < 0 || p.Width*p.Height > m.Photo[best].Width*m.Photo[best].Height {
				best = i
			}
		}
		if best < 0 {
			best = 0 // every size is over: the desk refuses it by its size
		}
		p := m.Photo[best]
		f := &channels.File{Photo: true, MIME: "image/jpeg", Size: int64(p.FileSize), Width: p.Width, Height: p.Height}
		f.Fetch = b.fetcher(p.FileID, f.Size, "the photo of "+where, sizelimit.Limit{What: "a photo", Hint: "a smaller one fits"})
		return f
	case m.Document != nil:
		d := m.Document
		f := &channels.File{MIME: d.MimeType, Size: d.FileSize, FileName: d.FileName}
		f.Fetch = b.fetcher(d.FileID, f.Size, "the file of "+where, sizelimit.Limit{What: "a file", Hint: "a smaller one fits"})
		return f
	}
	return nil
}
