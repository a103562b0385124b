package app

import (
	"context"
	"fmt"
	"strings"

	"github.com/jarvisbot/jarvisbot/app/assembly"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/skills"
	"github.com/jarvisbot/jarvisbot/store"
)

// learner keeps what the gate and the skill scorer learn in the store. A
// server's words reach the running catalog at once; a skill's are read
// with the skills at the start of every turn (Service.skillsFor), so the
// next turn has them either way.
type learner struct{ s *Service }

func (l learner) Learn(ctx context.Context, kind store.LearnedKind, name string, words []catalog.LearnedWord) error {
	list := make([]store.LearnedWord, len(words))
	for i, w := range words {
		list[i] = store.LearnedWord{Word: w.Stem, Label: w.Label}
	}
	if err := l.s.DB.LearnWords(ctx, kind, name, list, l.s.env.Now()); err != nil {
		return err
	}
	if kind != store.LearnedServer {
		return nil
	}
	return assembly.Learned(ctx, l.s.Catalog, l.s.DB, name)
}

func (l learner) Ignored(ctx context.Context, kind store.LearnedKind, name string, words []string) error {
	if _, err := l.s.DB.IgnoreLearned(ctx, kind, name, words); err != nil {
		return err
	}
	if kind != store.LearnedServer {
		return nil
	}
	return assembly.Learned(ctx, l.s.Catalog, l.s.DB, name)
}

func (l learner) Used(ctx context.Context, kind store.LearnedKind, name string, words []string) error {
	if err := l.s.DB.UsedLearned(ctx, kind, name, words); err != nil {
		return err
	}
	if kind != store.LearnedServer {
		return nil
	}
	return assembly.Learned(ctx, l.s.Catalog, l.s.DB, name)
}

// LearnedWords are the words learned for a server or skill, the most
// taught first (`mcp show`, `skills show`).
func (in *Installation) LearnedWords(ctx context.Context, kind store.LearnedKind, name string) ([]store.LearnedWord, error) {
	all, err := in.DB.LearnedWords(ctx, kind)
	if err != nil {
		return nil, err
	}
	return all[name], nil
}

// ForgetLearned removes a learned word of a server or skill, or all of
// them for word "" (`mcp forget NAME [WORD]`, `skills forget NAME
// [WORD]`). A server's leave the running catalog at once; a skill's are
// not read again by the next turn.
func (in *Installation) ForgetLearned(ctx context.Context, kind store.LearnedKind, name, word string) (string, error) {
	n, err := in.DB.ForgetLearned(ctx, kind, name, word)
	if err != nil {
		return "", err
	}
	if in.Live != nil && kind == store.LearnedServer {
		if err := assembly.Learned(ctx, in.Live.Catalog, in.DB, name); err != nil {
			return "", err
		}
	}
	switch {
	case n == 0 && word != "":
		return fmt.Sprintf("%s has no learned word %q.", name, word), nil
	case n == 0:
		return fmt.Sprintf("%s has no learned words.", name), nil
	case word != "" && kind == store.LearnedSkill:
		return fmt.Sprintf("The skill %s no longer enters a turn on %q.", name, word), nil
	case word != "":
		return fmt.Sprintf("%s no longer offers itself on %q.", name, word), nil
	}
	return fmt.Sprintf("Forgot the %d words %s had learned.", n, name), nil
}

// LearnedText is a server's or skill's learned words as `mcp show` and
// `skills show` list them.
func LearnedText(list []store.LearnedWord) string {
	if len(list) == 0 {
		return ""
	}
	parts := make([]string, len(list))
	for i, w := range list {
		parts[i] = fmt.Sprintf("%s (%s)", w.Label, plural(w.Turns, "turn"))
		if w.Ignored > 0 {
			parts[i] = fmt.Sprintf("%s (%s, offered and ignored %s)", w.Label, plural(w.Turns, "turn"), plural(w.Ignored, "time"))
		}
	}
	return "learned from your turns: " + strings.Join(parts, ", ")
}

// skillsWithLearned gives skills the words learned for them (C9), read
// from the store each time: a word learned or forgotten counts from the
// next turn on, whichever door or replica changed it.
func skillsWithLearned(ctx context.Context, db store.LearnedWords, list []*skills.Skill) ([]*skills.Skill, error) {
	if len(list) == 0 {
		return list, nil
	}
	all, err := db.LearnedWords(ctx, store.LearnedSkill)
	if err != nil {
		return nil, err
	}
	learned := make(map[string][]catalog.LearnedWord, len(all))
	for name, ws := range all {
		learned[name] = assembly.LearnedOf(ws)
	}
	return skills.WithLearned(list, learned), nil
}
