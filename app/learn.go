package app

import (
	"context"
	"fmt"
	"strings"

	"github.com/jarvisbot/jarvisbot/app/assembly"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/store"
)

// learner keeps what the gate learns in the store and gives it to the
// running catalog at once: the next turn is offered the server.
type learner struct{ s *Service }

func (l learner) Learn(ctx context.Context, server string, words []catalog.LearnedWord) error {
	list := make([]store.LearnedWord, len(words))
	for i, w := range words {
		list[i] = store.LearnedWord{Word: w.Stem, Label: w.Label}
	}
	if err := l.s.DB.LearnWords(ctx, server, list, l.s.env.Now()); err != nil {
		return err
	}
	return assembly.Learned(ctx, l.s.Catalog, l.s.DB, server)
}

// LearnedWords are the words the gate learned for a server, the most
// taught first (`mcp show`).
func (in *Installation) LearnedWords(ctx context.Context, server string) ([]store.LearnedWord, error) {
	all, err := in.DB.LearnedWords(ctx)
	if err != nil {
		return nil, err
	}
	return all[server], nil
}

// ForgetLearned removes a learned word of a server, or all of them for
// word "" (`mcp forget NAME [WORD]`), and takes them out of the running
// catalog.
func (in *Installation) ForgetLearned(ctx context.Context, server, word string) (string, error) {
	n, err := in.DB.ForgetLearned(ctx, server, word)
	if err != nil {
		return "", err
	}
	if in.Live != nil {
		if err := assembly.Learned(ctx, in.Live.Catalog, in.DB, server); err != nil {
			return "", err
		}
	}
	switch {
	case n == 0 && word != "":
		return fmt.Sprintf("%s has no learned word %q.", server, word), nil
	case n == 0:
		return fmt.Sprintf("%s has no learned words.", server), nil
	case word != "":
		return fmt.Sprintf("%s no longer offers itself on %q.", server, word), nil
	}
	return fmt.Sprintf("Forgot the %d words %s had learned.", n, server), nil
}

// LearnedText is a server's learned words as `mcp show` lists them.
func LearnedText(list []store.LearnedWord) string {
	if len(list) == 0 {
		return ""
	}
	parts := make([]string, len(list))
	for i, w := range list {
		parts[i] = fmt.Sprintf("%s (%s)", w.Label, plural(w.Turns, "turn"))
	}
	return "learned from your turns: " + strings.Join(parts, ", ")
}
