package skills

import (
	"fmt"
	"testing"
)

func manual(name, plugin, does string, words, de, related []string, desc, body string) *Skill {
	return &Skill{Name: name, Plugin: plugin, Does: Kind(does), Words: words, WordsDE: de, Related: related,
		Description: desc, Body: body, Origin: Own}
}

func rankSet() []*Skill {
	return []*Skill{
		manual("google-calendar", "google-calendar", "tools",
			[]string{"calendar", "event", "meeting", "appointment"}, []string{"Termin", "Kalender", "Besprechung"},
			[]string{"free", "busy", "available", "schedule", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"},
			"Read and change the owner's Google Calendar.", "Use the calendar tools. Read first."),
		manual("github", "github", "tools", []string{"repo", "pull request", "issue"}, []string{"Repository"}, nil,
			"Work with GitHub repositories.", "Read first, confirm before merging."),
		manual("humanizer", "", "instructions", []string{"humanize", "sound human", "less robotic"}, []string{"menschlicher"}, nil,
			"Rewrite text so it sounds like a person wrote it.", "Prefer short sentences."),
		manual("nightly-backup", "", "background", []string{"backup"}, []string{"Sicherung"}, nil,
			"Back up the wiki every night.", ""),
	}
}

// TestRankEntryS3S4: the right skill ranks first, and how it may enter
// follows from what it does, not what it claims.
func TestRankEntryS3S4(t *testing.T) {
	r := NewRanker(rankSet())
	tests := []struct {
		msg   string
		want  string
		entry Entry
	}{
		{"Am I busy on Friday evening?", "google-calendar", EntryJoin},
		{"Welche Termine habe ich morgen?", "google-calendar", EntryJoin},
		{"Was steht im Terminkalender?", "google-calendar", EntryJoin},
		{"Raise a pull request for my patch", "github", EntryJoin},
		{"Can you make this email sound human?", "humanizer", EntryTakeOver},
		{"Run the backup now", "nightly-backup", EntryOffer},
		{"How do terminals work?", "", ""},
		{"Tell me a joke", "", ""},
	}
	for _, tt := range tests {
		ms := r.Rank(tt.msg, nil)
		if tt.want == "" {
			for _, m := range ms {
				if m.Entry != EntryNone {
					t.Errorf("%q: %s entered (%s, %.2f)", tt.msg, m.ID(), m.Entry, m.Score)
				}
			}
			continue
		}
		if len(ms) == 0 || ms[0].Skill.Name != tt.want || ms[0].Entry != tt.entry {
			t.Errorf("%q: got %v, want %s first with %s", tt.msg, ms, tt.want, tt.entry)
		}
	}
}

func TestEntryForS4(t *testing.T) {
	tests := []struct {
		s    Skill
		want Entry
	}{
		{Skill{Does: KindInstructions}, EntryTakeOver},
		{Skill{Does: KindTools}, EntryJoin},
		{Skill{Does: KindInstructions, Plugin: "gmail"}, EntryJoin},
		{Skill{Does: KindBackground}, EntryOffer},
		{Skill{Does: KindInstructions, DisableModelInvocation: true}, EntryOffer},
	}
	for _, tt := range tests {
		if got := EntryFor(&tt.s, EnterAt); got != tt.want {
			t.Errorf("%+v: %s, want %s", tt.s, got, tt.want)
		}
		if got := EntryFor(&tt.s, EnterAt/2); got != EntryNone {
			t.Errorf("%+v below the threshold: %s", tt.s, got)
		}
	}
}

func benchRanker(n int) *Ranker {
	base := rankSet()
	list := make([]*Skill, 0, n)
	for i := 0; i < n; i++ {
		s := *base[i%len(base)]
		s.Name = fmt.Sprintf("%s-%d", s.Name, i)
		list = append(list, &s)
	}
	return NewRanker(list)
}

func benchRank(b *testing.B, n int) {
	r := benchRanker(n)
	msgs := []string{"Am I busy on Friday evening?", "Raise a pull request with the signup patch", "Tell me a joke", "Was steht im Terminkalender?"}
	out := make([]Match, 0, n)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		out = r.Rank(msgs[i%len(msgs)], out[:0])
		i++
	}
}

// BenchmarkSkillRank ranks a shipped-size set (~50 skills).
func BenchmarkSkillRank(b *testing.B)     { benchRank(b, 52) }
func BenchmarkSkillRank1000(b *testing.B) { benchRank(b, 1000) }

func TestLeadingManual(t *testing.T) {
	cal := &Skill{Name: "google-calendar", Plugin: "google-calendar", Does: KindTools}
	todo := &Skill{Name: "todoist", Plugin: "todoist", Does: KindTools}
	human := &Skill{Name: "humanizer", Does: KindInstructions}
	tests := []struct {
		ms   []Match
		want string
	}{
		{nil, ""},
		{[]Match{{Skill: cal, Score: 4, Entry: EntryJoin, Weak: false}}, "google-calendar"},
		{[]Match{{Skill: cal, Score: 4, Entry: EntryJoin, Weak: false}, {Skill: todo, Score: 2, Entry: EntryJoin, Weak: false}}, "google-calendar"},
		{[]Match{{Skill: cal, Score: 4, Entry: EntryJoin, Weak: false}, {Skill: todo, Score: 3.5, Entry: EntryJoin, Weak: false}}, ""}, // a tie brings neither
		{[]Match{{Skill: human, Score: 9, Entry: EntryTakeOver, Weak: false}, {Skill: cal, Score: 3, Entry: EntryJoin, Weak: false}}, ""},
		{[]Match{{Skill: cal, Score: 1, Entry: EntryNone, Weak: false}}, ""},
		{[]Match{{Skill: cal, Score: 4, Entry: EntryJoin, Weak: true}}, ""}, // one everyday word brings no servers
	}
	for i, tt := range tests {
		if got := LeadingManual(tt.ms); got != tt.want {
			t.Errorf("%d: %q, want %q", i, got, tt.want)
		}
	}
}

// TestLeadingManualEverydayWordAloneS3: a manual that matches a message on
// one everyday word may be reported, but does not bring its plugin's
// servers; two words, or one word that is not everyday, do.
func TestLeadingManualEverydayWordAloneS3(t *testing.T) {
	r := NewRanker(rankSet())
	tests := []struct {
		msg, want string
	}{
		{"Which event shaped the last century?", ""},
		{"Wie war das Event gestern?", ""},
		{"Is the meeting room big enough for ten people?", ""},
		{"Am I busy on Friday evening?", "google-calendar"},
		{"Put the dentist appointment in my calendar", "google-calendar"},
		{"Welche Termine habe ich morgen?", "google-calendar"},
		{"Which repo has the failing build?", "github"},
	}
	for _, tt := range tests {
		ms := r.Rank(tt.msg, nil)
		if got := LeadingManual(ms); got != tt.want {
			t.Errorf("%q: manual %q brings its servers, want %q (ranking %v)", tt.msg, got, tt.want, ms)
		}
	}
}

// weakSet is a small store of tool manuals whose words are everyday:
// a time tracker that speaks of time entries, a mail client, a music
// player, a calendar, and a board tool named after a weekday.
func weakSet() []*Skill {
	return []*Skill{
		manual("hourly", "hourly", "tools", []string{"Hourly", "timesheet", "time entry"}, []string{"Zeiterfassung"},
			[]string{"timer", "time tracking", "billable hours"},
			"Use when the owner wants to log or see time entries in Hourly.", "Start and stop timers, log time entries, list the time spent per project."),
		manual("postbox", "postbox", "tools", []string{"email", "mail", "inbox"}, []string{"E-Mail", "Posteingang"},
			[]string{"unread", "sender"}, "Read and send the owner's mail.", "Read first."),
		manual("tuneplay", "tuneplay", "tools", []string{"music", "song", "playlist"}, []string{"Musik", "Lied"},
			[]string{"album", "shuffle"}, "Play music.", "Play and pause."),
		manual("daybook", "daybook", "tools", []string{"calendar", "appointment"}, []string{"Kalender", "Termin"},
			[]string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday"}, "Read and change the owner's calendar.", "List events."),
		manual("sunday", "sunday", "tools", []string{"sunday", "board", "card"}, []string{"Karte"},
			nil, "Use when the owner wants to see or move cards on a Sunday board.", "Move cards between columns."),
	}
}

// TestWeakMatchNeverEntersS4: one everyday word that the author did not
// list as what the skill is about ("time" in a time tracker's prose, a
// brand's name that is a weekday) does not make a tool manual join; one
// listed word does, however everyday, and so does a German compound whose
// last part is one ("Partylieder" are songs).
func TestWeakMatchNeverEntersS4(t *testing.T) {
	r := NewRanker(weakSet())
	tests := []struct {
		msg, want string
	}{
		{"What is 7 times 8?", ""},
		{"How much time do I need to walk to the station?", ""},
		{"Was ist auf dem Sunday-Board neu?", "sunday"},
		{"Anything planned for this Sunday?", ""},
		{"Any new mails?", "postbox"},
		{"Zeig mir neue Mails", "postbox"},
		{"Play some songs", "tuneplay"},
		{"Spiel meine Partylieder", "tuneplay"},
		{"Öffne den Urlaubskalender", "daybook"},
		{"Trag das in den Familienkalender ein", "daybook"},
	}
	for _, tt := range tests {
		ms := r.Rank(tt.msg, nil)
		if got := firstEntering(ms); got != tt.want {
			t.Errorf("%q: first entering skill %q, want %q (%+v)", tt.msg, got, tt.want, ms)
		}
	}
}

// TestDayPartsReachATimeManualS3: a manual whose author listed the
// weekdays and a few times of the day is asked about the other times of
// those families too: relative days and parts of the day, in English and
// German, alone as compounds ("übermorgen", "Sonntagnachmittag") or beside
// a weekday. A greeting that names one time of day does not bring it.
func TestDayPartsReachATimeManualS3(t *testing.T) {
	planner := manual("planner", "planner", "tools", []string{"calendar", "appointment"}, []string{"Kalender", "Termin"},
		[]string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "tomorrow", "evening"},
		"Read and change the owner's calendar.", "List events.")
	list := append(weakSet()[:3], planner)
	// Other subjects, so that a word's rarity among the skills is as in a
	// real store.
	for _, subject := range []string{"recipe", "invoice", "printer", "garden", "bicycle", "flight", "photo", "contract", "lesson", "parcel"} {
		list = append(list, manual(subject+"-tool", subject+"-tool", "tools", []string{subject}, nil, nil, "Work with "+subject+"s.", ""))
	}
	r := NewRanker(list)
	tests := []struct {
		msg, want string
	}{
		{"Is Saturday afternoon still open?", "planner"},
		{"Hab ich heute Nachmittag oder Abend was vor?", "planner"},
		{"Anything at noon or in the afternoon?", "planner"},
		{"Habe ich übermorgen Vormittag etwas vor?", "planner"},
		{"Was ist am Sonntagnachmittag los?", "planner"},
		{"Bin ich Samstag abends schon verplant?", "planner"},
		{"Good morning!", ""},
		{"Gute Nacht!", ""},
	}
	for _, tt := range tests {
		ms := r.Rank(tt.msg, nil)
		if got := firstEntering(ms); got != tt.want {
			t.Errorf("%q: first entering skill %q, want %q (%+v)", tt.msg, got, tt.want, ms)
		}
	}
}

// TestParticipleReachesManualS3: a German past participle finds the
// manual that lists its verb's noun or verb ("geantwortet" for "Antwort",
// "gebucht" for "buchen").
func TestParticipleReachesManualS3(t *testing.T) {
	list := []*Skill{
		manual("postbox", "postbox", "tools", []string{"email", "reply"}, []string{"E-Mail", "Antwort"}, nil, "Read and send the owner's mail.", ""),
		manual("tripbook", "tripbook", "tools", []string{"booking", "hotel"}, []string{"buchen", "Hotel"}, nil, "Book trips.", ""),
	}
	for _, subject := range []string{"recipe", "invoice", "printer", "garden", "bicycle", "photo"} {
		list = append(list, manual(subject+"-tool", subject+"-tool", "tools", []string{subject}, nil, nil, "Work with "+subject+"s.", ""))
	}
	r := NewRanker(list)
	for _, tt := range []struct{ msg, want string }{
		{"Hat mir der Handwerker schon geantwortet?", "postbox"},
		{"Habe ich das Zimmer in Wien schon gebucht?", "tripbook"},
	} {
		if got := firstEntering(r.Rank(tt.msg, nil)); got != tt.want {
			t.Errorf("%q: first entering skill %q, want %q", tt.msg, got, tt.want)
		}
	}
}
