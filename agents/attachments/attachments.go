// Package attachments turns the files the owner sends into what a model
// reads (CH4): an image is decoded, scaled down to the providers' limit
// and sent as JPEG; a document's text is read in the process (PDF, .docx,
// plain text, Markdown, CSV) and cut to a bound that the text handed to
// the model states. Everything here is the standard library: the binary
// carries no image or PDF module for this.
package attachments

import (
	"fmt"
	"path"
	"strings"
)

// Kinds of file, by what the model gets of them.
const (
	KindImage = "image"
	KindPDF   = "pdf"
	KindDocx  = "docx"
	KindText  = "text"
)

// Accepted says, in one sentence's words, what is taken: for the answer
// to a file that is not.
const Accepted = "I read photos and JPEG, PNG or GIF images, and PDF, Word (.docx), text, Markdown and CSV files"

// KindOf says what kind of file the platform's type and the file's name
// announce, before it is downloaded; ok is false for one that is not
// taken. A photo sent as such is always an image.
func KindOf(photo bool, mime, name string) (kind string, ok bool) {
	if photo {
		return KindImage, true
	}
	mime = strings.ToLower(mime)
	ext := strings.ToLower(path.Ext(name))
	// A platform that does not know the type says so, or says
	// application/octet-stream: the name's extension decides then.
	unknown := mime == "" || mime == "application/octet-stream"
	switch {
	case mime == "image/jpeg" || mime == "image/png" || mime == "image/gif",
		unknown && (ext == ".jpg" || ext == ".jpeg" || ext == ".png" || ext == ".gif"):
		return KindImage, true
	case mime == "application/pdf" || ext == ".pdf":
		return KindPDF, true
	case mime == "application/vnd.openxmlformats-officedocument.wordprocessingml.document" || ext == ".docx":
		return KindDocx, true
	case strings.HasPrefix(mime, "text/"), mime == "application/json", mime == "application/csv",
		ext == ".txt" || ext == ".md" || ext == ".markdown" || ext == ".csv" || ext == ".tsv" || ext == ".json" || ext == ".log":
		return KindText, true
	}
	return "", false
}

// Describe names a file for the owner: its name, else its type.
func Describe(photo bool, mime, name string) string {
	switch {
	case photo:
		return "photo"
	case name != "":
		return fmt.Sprintf("file %q", name)
	case mime != "":
		return "file (" + mime + ")"
	}
	return "file"
}
