package catalog

import (
	"slices"

	"github.com/jarvisbot/jarvisbot/internal/words"
)

// Focus computes an agent's focus from its name and description (C6), once,
// when the agent is created, with no model: the capabilities the words name
// ("a daily overview of my Gmail inbox" -> plugin:gmail) and the MCP servers
// the gate would offer for the same words ("mcp:github/*"). The agent keeps
// every other tool too; focus only moves these to the top of its list.
func (v *View) Focus(name, description string) []string {
	text := name + " " + description
	var z words.Tokenizer
	toks := z.Tokenize(text)
	keys := map[string]bool{}
	for i := range toks {
		k := ""
		for w := 0; w < 3 && i+w < len(toks); w++ {
			k += toks[i+w].Fold
			keys[k] = true
		}
	}
	lex := words.Default()
	var out []string
	for i := range v.caps {
		cp := &v.caps[i]
		if cp.Server != "" || cp.Kind == KindSkill || v.never[i] {
			continue
		}
		key := words.Key(cp.Name)
		// A capability named by an everyday word ("notes") is not focus
		// just because the description uses that word.
		if len(key) >= 3 && keys[key] && lex.Class(words.Stem(key)) == words.Content {
			out = append(out, cp.ID)
		}
	}
	for _, d := range v.gate().Check(text, nil) {
		if d.Offered {
			out = append(out, "mcp:"+d.Server+"/*")
			if s, ok := v.Server(d.Server); ok && s.Plugin != "" {
				if _, ok := v.Capability("plugin:" + s.Plugin); ok && !slices.Contains(out, "plugin:"+s.Plugin) {
					out = append(out, "plugin:"+s.Plugin)
				}
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
