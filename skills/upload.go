package skills

import (
	"path"

	"go.yaml.in/yaml/v3"

	"github.com/jarvisbot/jarvisbot"
)

// ImportUpload reads an uploaded SKILL.md for installation (S6), with the
// same checks as Import. An upload comes without its folder, so the
// folder is taken to be the one its own name: field names, and a file
// that names no skill is refused (a folder's name cannot stand in for
// it). label names the upload in errors.
func ImportUpload(label string, data []byte) (Incoming, error) {
	if err := checkText(label, data); err != nil {
		return Incoming{}, err
	}
	folder := "upload" // only reached by a file the parser refuses anyway
	if front, _, err := split(label, data); err == nil {
		var head struct {
			Name *string `yaml:"name"`
		}
		_ = yaml.Unmarshal(front, &head) // a broken front matter is the parser's to report, below
		switch {
		case head.Name == nil || *head.Name == "":
			return Incoming{}, jarvisbot.Errorf(jarvisbot.EINVALID, "%s: name: missing; an uploaded %s has no folder to take its name from, so add \"name: my-skill\" to its front matter", label, FileName)
		case validName(*head.Name) == "":
			folder = *head.Name
		}
	}
	s, err := Import(path.Join(folder, FileName), data)
	if err != nil {
		return Incoming{}, err
	}
	return Incoming{Skill: s, Original: string(data)}, nil
}
