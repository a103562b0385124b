package attachments

import "github.com/jarvisbot/jarvisbot"

// ReadPDF reads the text of a PDF's first maxPages pages.
func ReadPDF(data []byte, maxPages int) (Document, error) {
	return Document{}, jarvisbot.Errorf(jarvisbot.EINVALID, "PDF files are not read yet")
}

// ReadDocx reads the text of a Word document.
func ReadDocx(data []byte) (string, error) {
	return "", jarvisbot.Errorf(jarvisbot.EINVALID, "Word files are not read yet")
}
