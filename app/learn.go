package app

import (
	"context"
	"fmt"
	"strings"
	"time"

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

func (l learner) Learn(ctx context.Context, kind store.LearnedKind, name, chat string, words []catalog.LearnedWord) error {
	list := make([]store.LearnedWord, len(words))
	for i, w := range words {
		list[i] = store.LearnedWord{Word: w.Stem, Label: w.Label, Chat: chat}
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
// `skills show` list them, with their LearnedNote, times in zone; words
// of one note (most often, taught by the same turn) share it:
// "hustensaft, sonntags (1 turn, Wed 2 Dec 12:00 in console)".
func LearnedText(list []store.LearnedWord, zone *time.Location) string {
	if len(list) == 0 {
		return ""
	}
	var notes []string
	words := map[string][]string{}
	for _, w := range list {
		n := LearnedNote(w, zone)
		if _, ok := words[n]; !ok {
			notes = append(notes, n)
		}
		words[n] = append(words[n], w.Label)
	}
	parts := make([]string, len(notes))
	for i, n := range notes {
		parts[i] = fmt.Sprintf("%s (%s)", strings.Join(words[n], ", "), n)
	}
	return "learned from your turns: " + strings.Join(parts, "; ")
}

// LearnedNote says how many turns taught a learned word, when and in
// which chat the last of them was, and how often its offers went unused
// since: "1 turn, Mon 7 Dec 09:12 in telegram:42", "2 turns, the last Sun 6
// Dec 19:00 in console; offered and ignored 1 time".
func LearnedNote(w store.LearnedWord, zone *time.Location) string {
	note := plural(w.Turns, "turn")
	var when string
	if !w.LastAt.IsZero() {
		when = w.LastAt.In(zone).Format("Mon 2 Jan 15:04")
	}
	if w.Chat != "" {
		when = strings.TrimSpace(when + " in " + w.Chat)
	}
	switch {
	case when == "":
	case w.Turns > 1:
		note += ", the last " + when
	default:
		note += ", " + when
	}
	if w.Ignored > 0 {
		note += "; offered and ignored " + plural(w.Ignored, "time")
	}
	return note
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
