// Package attachments turns the files the owner sends into what a model
// reads (CH4): an image is decoded, scaled down to the providers' limit
// and sent as JPEG; a document's text is read in the process (PDF, .docx,
// plain text, Markdown, CSV) and cut to a bound that the text handed to
// the model states. Everything here is the standard library: the binary
// carries no image or PDF module for this.
package attachments
