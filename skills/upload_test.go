package skills

import (
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot"
)

// TestImportUploadS6: an uploaded SKILL.md has no folder: its own name
// stands for it, fields that grant behaviour are dropped as on any
// import, and a file that names no skill, or a bad one, is refused.
func TestImportUploadS6(t *testing.T) {
	in, err := ImportUpload("SKILL.md", []byte("---\nname: tidy-notes\ndescription: Tidies my notes into short bullet lists.\nallowed-tools: Bash\n---\nKeep it short.\n"))
	if err != nil {
		t.Fatal(err)
	}
	if in.Name != "tidy-notes" || len(in.Dropped) != 1 || in.Dropped[0].Field != "allowed-tools" || !strings.Contains(in.Original, "allowed-tools") {
		t.Errorf("got %+v", in)
	}
	for _, tc := range []struct{ name, file, want string }{
		{"no name", "---\ndescription: x\n---\nbody\n", "name: missing"},
		{"bad name", "---\nname: Tidy Notes\ndescription: x\n---\nbody\n", "may hold only lowercase"},
		{"no front matter", "just text\n", "front matter: missing"},
		{"binary", "---\nname: a\x00\n---\n", "binary"},
	} {
		_, err := ImportUpload("SKILL.md", []byte(tc.file))
		if jarvisbot.ErrorCode(err) != jarvisbot.EINVALID || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}
