package catalog

import (
	"strings"

	"github.com/jarvisbot/jarvisbot/internal/words"
)

// A server that searches what was said before (builtin:memory, A6) is
// needed when the owner refers to the past of the conversation: "what did
// I tell you about the landlord?", "we talked about it last week", "do you
// remember the restaurant?", "was hab ich dir gestern gesagt?", "erinnerst
// du dich an …". Its own words (search, messages) are not how the owner
// asks, so the gate offers it on one of three signals instead (Check):
//
//   - a word of remembering: remember, recall, erinnern and their forms,
//     "forgot"; not "remember to …" nor "erinnere mich an …", which ask
//     for a reminder;
//   - a verb of saying in a past form ("told", "mentioned", "gesagt",
//     "besprochen"), or after "did", beside the owner or the assistant
//     ("I", "you", "we", "ich", "du", "wir");
//   - a time of the past ("yesterday", "three weeks ago", "last week",
//     "gestern", "vor drei Wochen", "letzten Montag") with a verb of saying
//     in any form: a time alone is the past of the world ("since
//     yesterday's deploy", "we took a long drive yesterday"), not of what
//     was said.
//
// The English verbs' past forms and the time words come from the
// thesaurus (forms, translations, the families of times); German past
// participles are irregular enough to be listed with their verbs.

// Anchors of the signals. Each is looked up in the thesaurus, whose forms
// and translations join it.
var (
	rememberAnchors = []string{"remember", "recall", "erinnern"}
	// forgotForms are the past of forgetting; "forget" itself mostly asks
	// to keep ("don't forget to …").
	forgotForms = []string{"forgot", "forgotten"}
	// sayAnchors are verbs of saying, telling and agreeing.
	sayAnchors = []string{"tell", "say", "mention", "talk", "discuss", "speak", "ask", "write", "explain",
		"recommend", "suggest", "promise", "agree", "decide"}
	// germanSaid are German verbs of saying with their past participle.
	germanSaid = [][2]string{{"sagen", "gesagt"}, {"erzählen", "erzählt"}, {"erwähnen", "erwähnt"},
		{"sprechen", "gesprochen"}, {"besprechen", "besprochen"}, {"reden", "geredet"}, {"fragen", "gefragt"},
		{"schreiben", "geschrieben"}, {"erklären", "erklärt"}, {"empfehlen", "empfohlen"},
		{"versprechen", "versprochen"}, {"vereinbaren", "vereinbart"}, {"ausmachen", "ausgemacht"},
		{"abmachen", "abgemacht"}, {"meinen", "gemeint"}, {"beschließen", "beschlossen"},
		{"entscheiden", "entschieden"}}
	// pastAux put the verb after them in the past: "did I tell you",
	// "didn't you say".
	pastAux = []string{"did", "didn"}
	// agoWords are times of the past on their own; the thesaurus adds
	// their synonyms and translations ("recently": lately, neulich,
	// kürzlich).
	agoWords = []string{"yesterday", "ago", "earlier", "recently", "previously", "gestern", "vorgestern",
		"damals", "vorhin", "letztens"}
	// lastWords put a time unit after them in the past: "last week",
	// "letzten Montag", "the previous month", "vor drei Wochen".
	lastWords = []string{"last", "previous", "past", "letzt", "vorig", "vor"}
	// unitAnchors are time units; each brings its family of times
	// (weekdays and the weekend with "week", the parts of a day with
	// "night") and its translations.
	unitAnchors = []string{"week", "night", "month", "year", "time", "day", "weekend"}
	// weWords are the owner and the assistant together; youWords the
	// assistant.
	weWords  = []string{"we", "wir", "uns"}
	youWords = []string{"you", "du", "dich", "dir", "ihr", "euch"}
	// askedWords after a verb make it a question: "Erinnerst du dich …?"
	askedWords = []string{"you", "du", "ihr"}
)

// pastWords is what the gate knows of the three signals, built with it.
type pastWords struct {
	server   []bool          // per view server: it searches what was said (Server.Past)
	remember map[string]bool // stems of remembering
	roots    []string        // the longer of them, whose conjugated forms keep their endings (rememberForm)
	forgot   map[string]bool // folds of forgetting's past
	saidPast map[string]bool // folds of the past forms of saying
	say      map[string]bool // stems of saying, any form
	aux      map[string]bool
	ago      map[string]bool
	last     map[string]bool
	units    map[string]bool
	we       map[string]bool
	you      map[string]bool
	asked    map[string]bool
	remindMe string // the stem of "mich": "erinnere mich" asks for a reminder
	to       string // "remember to …" asks for one too
	ich      string
}

func buildPast(g *Gate, servers []Server) pastWords {
	th := words.DefaultThesaurus()
	stem := func(w string) string {
		var b []byte
		for _, r := range w {
			b = words.AppendFold(b, r)
		}
		return words.Stem(string(b))
	}
	p := pastWords{server: make([]bool, len(g.servers)), remember: map[string]bool{}, forgot: map[string]bool{}, saidPast: map[string]bool{},
		say: map[string]bool{}, aux: map[string]bool{}, ago: map[string]bool{}, last: map[string]bool{}, units: map[string]bool{}, we: map[string]bool{}, you: map[string]bool{}, asked: map[string]bool{},
		remindMe: stem("mich"), to: stem("to"), ich: stem("ich")}
	for i := range servers {
		p.server[i] = servers[i].Past
	}
	for _, a := range rememberAnchors {
		s := stem(a)
		p.remember[s] = true
		th.EachRelated(s, func(rel string, how words.Relation) {
			if how == words.Same || how == words.Form {
				p.remember[rel] = true
			}
		})
	}
	for s := range p.remember {
		if len(s) >= 5 {
			p.roots = append(p.roots, s)
		}
	}
	for _, f := range forgotForms {
		p.forgot[f] = true
	}
	for _, a := range sayAnchors {
		s := stem(a)
		p.say[s] = true
		th.EachRelated(s, func(rel string, how words.Relation) {
			if how != words.Form {
				return
			}
			p.say[rel] = true
			// A form that is neither the present participle nor the third
			// person is a past: "told", "said", "mentioned", "spoken".
			if !strings.HasSuffix(rel, "ing") && rel != s+"s" {
				p.saidPast[rel] = true
			}
		})
	}
	for _, vp := range germanSaid {
		p.say[stem(vp[0])] = true
		p.say[stem(vp[1])] = true
		var b []byte
		for _, r := range vp[1] {
			b = words.AppendFold(b, r)
		}
		p.saidPast[string(b)] = true
	}
	for _, a := range pastAux {
		p.aux[stem(a)] = true
	}
	for _, a := range agoWords {
		s := stem(a)
		p.ago[s] = true
		th.EachRelated(s, func(rel string, how words.Relation) {
			if how == words.Same || how == words.Synonym && (s == stem("recently")) {
				p.ago[rel] = true
			}
		})
	}
	for _, a := range lastWords {
		p.last[stem(a)] = true
	}
	families := th.Families()
	for _, a := range unitAnchors {
		s := stem(a)
		p.units[s] = true
		th.EachRelated(s, func(rel string, how words.Relation) {
			if how == words.Same || how == words.Form {
				p.units[rel] = true
			}
		})
		for _, fam := range families {
			for _, w := range fam {
				if w == s {
					for _, u := range fam {
						p.units[u] = true
					}
					break
				}
			}
		}
	}
	for _, w := range weWords {
		p.we[stem(w)] = true
	}
	for _, w := range youWords {
		p.you[stem(w)] = true
	}
	for _, w := range askedWords {
		p.asked[stem(w)] = true
	}
	return p
}

// refers finds in a message's tokens a reference to the past of the
// conversation and returns what it read, as the explanation shows it
// ("told … you", "last week … talked"); ok is false when there is none.
func (p *pastWords) refers(lex *words.Lexicon, toks []words.Token) (term string, ok bool) {
	ich := false
	person := "" // the first word of the owner, the assistant or both
	sayAny := ""
	for _, t := range toks {
		if t.Stem == p.ich {
			ich = true
		}
		if person == "" && (lex.Self(t.Stem) || lex.Addresses(t.Stem) || p.we[t.Stem]) {
			person = t.Fold
		}
		if sayAny == "" && (p.say[t.Stem] || p.saidPast[t.Fold]) {
			sayAny = t.Fold
		}
	}
	for i, t := range toks {
		next := ""
		if i+1 < len(toks) {
			next = toks[i+1].Stem
		}
		switch {
		case p.forgot[t.Fold]:
			return t.Fold, true
		case p.remember[t.Stem] || p.rememberForm(t.Fold):
			if next == p.to || next == p.remindMe && !ich {
				continue // a reminder asked for: "remember to call", "erinnere mich an"
			}
			if p.opens(lex, toks[:i]) && !p.asked[next] {
				continue // "Remember that I …", "Please remember …": a fact to keep, not one to recall
			}
			return t.Fold, true
		case person != "" && (p.saidPast[t.Fold] || p.say[t.Stem] && p.afterAux(toks[max(0, i-3):i])):
			return t.Fold + " … " + person, true
		}
	}
	// A time of the past, with a verb of saying: "we" alone may be the
	// owner's family on a trip.
	with := sayAny
	if with == "" {
		return "", false
	}
	for i, t := range toks {
		if p.ago[t.Stem] {
			return t.Fold + " … " + with, true
		}
		if !p.last[t.Stem] {
			continue
		}
		// "last week", "letzten Montag", "vor drei Wochen": a unit within
		// the next three words.
		for _, u := range toks[i+1 : min(len(toks), i+4)] {
			if p.units[u.Stem] {
				return t.Fold + " " + u.Fold + " … " + with, true
			}
		}
	}
	return "", false
}

// rememberForm reports whether a German word is a conjugated form of a
// verb of remembering ("erinnerst", "erinnert"): German conjugates by
// endings the light stemmer leaves on.
func (p *pastWords) rememberForm(fold string) bool {
	for _, s := range p.roots {
		if strings.HasPrefix(fold, s) && len(fold)-len(s) <= 4 {
			return true
		}
	}
	return false
}

// opens reports whether the words before a verb are only polite or
// function words, none of them "you": the verb then opens the message as
// a request ("Please remember …"), where "do you remember" asks.
func (p *pastWords) opens(lex *words.Lexicon, before []words.Token) bool {
	for _, t := range before {
		if lex.Class(t.Stem) != words.Stop || p.you[t.Stem] {
			return false
		}
	}
	return true
}

// afterAux reports whether one of the words before a verb puts it in the
// past: "did I tell", "didn't you say".
func (p *pastWords) afterAux(before []words.Token) bool {
	for _, t := range before {
		if p.aux[t.Stem] {
			return true
		}
	}
	return false
}
