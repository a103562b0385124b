package google

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/plugins/builtins/native"
)

// describeUpload says what an upload puts where, for its approval request
// (CH2), should the owner raise upload_file to ask.
func (d driveTools) describeUpload(_ context.Context, args json.RawMessage) (catalog.Description, bool) {
	var in struct {
		Name     string `json:"name"`
		Content  string `json:"content"`
		MimeType string `json:"mime_type"`
		FolderID string `json:"folder_id"`
	}
	if native.Decode(args, &in) != nil {
		return catalog.Description{}, false
	}
	folder := strings.TrimSpace(in.FolderID)
	if folder == "" {
		folder = "the top of My Drive"
	}
	lines := []catalog.Line{{Label: "Name", Value: in.Name}, {Label: "Folder", Value: folder}}
	if in.MimeType != "" {
		lines = append(lines, catalog.Line{Label: "Type", Value: in.MimeType})
	}
	lines = append(lines, catalog.Line{Label: "Text", Value: in.Content})
	return catalog.Description{What: "Upload a new file to your Google Drive", Lines: lines}, true
}
