// Package wiki is the builtin wiki (builtin:wiki, P5): the owner's Markdown notes, one file per
// note under a directory of the data dir. A note named "projects/garden" is
// the file <dir>/projects/garden.md, so the notes stay readable and editable
// with any editor. Every file access goes through an os.Root opened on the
// directory, so no name, however hostile, and no symlink reaches outside it.
//
// The agent runtime reaches the wiki through Call (tool.go), the command line
// through the methods below; both see the same validation and errors.
package wiki

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/excerpt"
	"github.com/jarvisbot/jarvisbot/internal/sizelimit"
	"github.com/jarvisbot/jarvisbot/internal/words"
)

// Limits on what a note may be.
const (
	MaxName = 200     // bytes of a normalised note name
	MaxBody = 1 << 20 // bytes of a note's Markdown
)

// ext is the file name extension of a note.
const ext = ".md"

// defaultLimit is how many hits Search returns when asked for none.
const defaultLimit = 10

// Wiki is a directory of Markdown notes. It is safe for concurrent use; the
// writes of one Wiki are serialised so that concurrent appends lose nothing.
type Wiki struct {
	dir string
	mu  sync.Mutex // held by Write, Append and Delete
	// index keeps the notes searchable with everything said (A6); nil
	// for none.
	index Indexer
}

// Indexer keeps notes in a search index (the store's, store.Recall): the
// wiki tells it of every note written and every note deleted.
type Indexer interface {
	IndexNote(ctx context.Context, name, title, body string, modified time.Time) error
	ForgetNote(ctx context.Context, name string) error
}

// New returns the wiki stored in dir. Nothing is touched until the first
// write, which creates dir with mode 0700.
func New(dir string) *Wiki { return &Wiki{dir: dir} }

// IndexWith makes w tell ix of every note it writes or deletes, and
// returns w.
func (w *Wiki) IndexWith(ix Indexer) *Wiki {
	w.index = ix
	return w
}

// Reindex gives the index every note as it is now, notes edited by hand
// in the directory included, and takes out the ones in forget that no
// longer exist. It returns how many notes it indexed.
func (w *Wiki) Reindex(ctx context.Context, forget []string) (int, error) {
	if w.index == nil {
		return 0, nil
	}
	n := 0
	have := map[string]bool{}
	var firstErr error
	err := w.walk(ctx, func(note Note) {
		have[note.Name] = true
		if firstErr != nil {
			return
		}
		if err := w.index.IndexNote(ctx, note.Name, note.Title, note.Body, note.Modified); err != nil {
			firstErr = err
			return
		}
		n++
	})
	if err == nil {
		err = firstErr
	}
	if err != nil {
		return n, err
	}
	for _, name := range forget {
		if !have[name] {
			if err := w.index.ForgetNote(ctx, name); err != nil {
				return n, err
			}
		}
	}
	return n, nil
}

// indexed tells the index of a note just written. The note is saved
// either way; a failure says so, so that the caller knows search lags.
func (w *Wiki) indexed(ctx context.Context, n Note, err error) (Note, error) {
	if err != nil || w.index == nil {
		return n, err
	}
	if ierr := w.index.IndexNote(ctx, n.Name, n.Title, n.Body, n.Modified); ierr != nil {
		return n, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "note %q is saved, but searching what was said will not find its new text until it is written again: %w", n.Name, ierr)
	}
	return n, nil
}

// Note is one note. Title is its first "# " heading, else its name.
type Note struct {
	Name     string
	Title    string
	Body     string
	Modified time.Time
}

// Hit is one search result. Snippet is the text around the first match in
// the body, on one line.
type Hit struct {
	Name, Title, Snippet string
	Score                float64
}

// Read returns the named note. A missing note is ENOTFOUND, with the names
// of close notes as a hint when there are any.
func (w *Wiki) Read(ctx context.Context, name string) (Note, error) {
	n, err := cleanName(name)
	if err != nil {
		return Note{}, err
	}
	root, err := w.open(false)
	if err != nil {
		return Note{}, err
	}
	if root == nil {
		return Note{}, w.notFound(ctx, n)
	}
	defer root.Close()
	note, err := readNote(root, n)
	if errors.Is(err, fs.ErrNotExist) {
		return Note{}, w.notFound(ctx, n)
	}
	return note, err
}

// Write creates the named note or replaces its body. The file is replaced
// atomically: a reader sees the old note or the new one, never a mix.
func (w *Wiki) Write(ctx context.Context, name, body string) (Note, error) {
	note, err := w.modify(ctx, name, func(root *os.Root, n string) (Note, error) {
		return writeNote(root, n, body)
	})
	return w.indexed(ctx, note, err)
}

// modify runs fn on the opened wiki for a cleaned note name, holding the
// write lock, so that writes and appends never interleave.
func (w *Wiki) modify(ctx context.Context, name string, fn func(root *os.Root, n string) (Note, error)) (Note, error) {
	n, err := cleanName(name)
	if err != nil {
		return Note{}, err
	}
	if err := ctx.Err(); err != nil {
		return Note{}, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	root, err := w.open(true)
	if err != nil {
		return Note{}, err
	}
	defer root.Close()
	return fn(root, n)
}

// Append adds text at the end of the named note, on a line of its own,
// creating the note if it does not exist.
func (w *Wiki) Append(ctx context.Context, name, text string) (Note, error) {
	if text == "" {
		n, err := cleanName(name)
		if err != nil {
			return Note{}, err
		}
		return Note{}, jarvisbot.Errorf(jarvisbot.EINVALID, "nothing to append to note %q: the text is empty", n)
	}
	note, err := w.modify(ctx, name, func(root *os.Root, n string) (Note, error) {
		old, err := readNote(root, n)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return Note{}, err
		}
		body := old.Body
		if body != "" && !strings.HasSuffix(body, "\n") {
			body += "\n"
		}
		body += text
		if !strings.HasSuffix(body, "\n") {
			body += "\n"
		}
		return writeNote(root, n, body)
	})
	return w.indexed(ctx, note, err)
}

// List returns every note sorted by name, without bodies.
func (w *Wiki) List(ctx context.Context) ([]Note, error) {
	var notes []Note
	err := w.walk(ctx, func(n Note) {
		n.Body = ""
		notes = append(notes, n)
	})
	return notes, err
}

// Search finds the notes containing the words of query, ignoring case and
// diacritics ("muller" finds "Müller"). A word matches anywhere, also inside
// longer words. Hits are ranked by how many query words the note contains,
// then by how many of them are in its title or name, then by how often they
// occur; ties go by name. limit <= 0 means 10.
func (w *Wiki) Search(ctx context.Context, query string, limit int) ([]Hit, error) {
	words := queryWords(query)
	if len(words) == 0 {
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "search query %q has no words to look for", query)
	}
	if limit <= 0 {
		limit = defaultLimit
	}
	var hits []Hit
	err := w.walk(ctx, func(n Note) {
		if h, ok := match(n, words); ok {
			hits = append(hits, h)
		}
	})
	if err != nil {
		return nil, err
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].Name < hits[j].Name
	})
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return hits, nil
}

// Delete removes the named note, and the folders it leaves empty.
func (w *Wiki) Delete(ctx context.Context, name string) error {
	n, err := cleanName(name)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	root, err := w.open(false)
	if err != nil {
		return err
	}
	if root == nil {
		return w.notFound(ctx, n)
	}
	defer root.Close()
	if err := checkLinks(root, n); err != nil {
		return err
	}
	if err := root.Remove(n + ext); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return w.notFound(ctx, n)
		}
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "delete note %q: %w", n, err)
	}
	// Removing a folder fails while it holds anything, which is what stops
	// the climb.
	for d := path.Dir(n); d != "."; d = path.Dir(d) {
		if root.Remove(d) != nil {
			break
		}
	}
	if w.index != nil {
		if err := w.index.ForgetNote(ctx, n); err != nil {
			return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "note %q is deleted, but searching what was said may still find it: %w", n, err)
		}
	}
	return nil
}

// open opens the wiki directory as a root. When the directory does not
// exist it is created if create is set, else open returns a nil root.
func (w *Wiki) open(create bool) (*os.Root, error) {
	if w.dir == "" {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "the wiki has no directory")
	}
	if create {
		if err := os.MkdirAll(w.dir, 0o700); err != nil {
			return nil, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "create wiki directory %s: %w", w.dir, err)
		}
	}
	root, err := os.OpenRoot(w.dir)
	switch {
	case err == nil:
		return root, nil
	case !create && errors.Is(err, fs.ErrNotExist):
		return nil, nil
	}
	return nil, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "open wiki directory %s: %w", w.dir, err)
}

// walk calls fn with every note, bodies included, in name order. It checks
// ctx before each file.
func (w *Wiki) walk(ctx context.Context, fn func(Note)) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	root, err := w.open(false)
	if err != nil || root == nil {
		return err
	}
	defer root.Close()
	var names []string
	err = fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == "." {
				return err
			}
			return nil // an unreadable folder hides its notes, not the rest
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if p == "." {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir // .git, .obsidian and the like
			}
			return nil // temporary files of unfinished writes
		}
		if d.IsDir() || !strings.HasSuffix(p, ext) {
			return nil
		}
		// Names that do not survive cleaning ("a.md.md", "bad:name.md") are
		// files the wiki cannot address; leave them out.
		if n := strings.TrimSuffix(p, ext); addressable(n) {
			names = append(names, n)
		}
		return nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "list wiki directory %s: %w", w.dir, err)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := ctx.Err(); err != nil {
			return err
		}
		note, err := readNote(root, n)
		if err != nil {
			continue // removed meanwhile, or a symlink leading outside
		}
		fn(note)
	}
	return nil
}

// notFound is the ENOTFOUND error for name, naming close notes if any.
func (w *Wiki) notFound(ctx context.Context, name string) error {
	notes, _ := w.List(ctx)
	names := make([]string, len(notes))
	for i, n := range notes {
		names[i] = n.Name
	}
	if near := closeNames(name, names, 3); len(near) > 0 {
		return jarvisbot.Errorf(jarvisbot.ENOTFOUND, "no note %q in the wiki; did you mean %s?", name, quoteList(near))
	}
	return jarvisbot.Errorf(jarvisbot.ENOTFOUND, "no note %q in the wiki; list or search the notes to find the right name", name)
}

// readNote reads the note n (a clean name) from root. A missing note is an
// error satisfying errors.Is(err, fs.ErrNotExist).
func readNote(root *os.Root, n string) (Note, error) {
	if err := checkLinks(root, n); err != nil {
		return Note{}, err
	}
	f, err := root.Open(n + ext)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Note{}, err
		}
		return Note{}, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "read note %q: %w", n, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Note{}, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "read note %q: %w", n, err)
	}
	if !fi.Mode().IsRegular() {
		return Note{}, jarvisbot.Errorf(jarvisbot.ECONFLICT, "note %q is not a regular file in the wiki directory", n)
	}
	// A note file edited or put there by hand may be larger than a note
	// may be: it is refused with its size, not read into memory.
	limit := sizelimit.Limit{What: "a note", Max: MaxBody, Hint: "split it into several notes"}
	data, err := limit.ReadAll(f, "note "+strconv.Quote(n))
	if err != nil {
		if jarvisbot.ErrorCode(err) == jarvisbot.EINVALID {
			return Note{}, err
		}
		return Note{}, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "read note %q: %w", n, err)
	}
	body := string(data)
	return Note{Name: n, Title: title(body, n), Body: body, Modified: fi.ModTime()}, nil
}

// writeNote replaces note n in root with body through a temporary file in
// the same folder and a rename.
func writeNote(root *os.Root, n, body string) (Note, error) {
	if len(body) > MaxBody {
		return Note{}, jarvisbot.Errorf(jarvisbot.EINVALID, "note %q would be %d bytes; the most a note may hold is %d (1 MiB): split it into several notes", n, len(body), MaxBody)
	}
	if err := checkLinks(root, n); err != nil {
		return Note{}, err
	}
	dir, base := path.Split(n)
	if dir != "" {
		if err := root.MkdirAll(dir, 0o700); err != nil {
			return Note{}, jarvisbot.Errorf(jarvisbot.ECONFLICT, "create folder %q for note %q: %w", strings.TrimSuffix(dir, "/"), n, err)
		}
	}
	tmp := dir + "." + base + ext + ".tmp-" + rand.Text()
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return Note{}, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "write note %q: %w", n, err)
	}
	_, err = f.WriteString(body)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Rename(tmp, n+ext)
	}
	if err != nil {
		if rerr := root.Remove(tmp); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			err = errors.Join(err, fmt.Errorf("its temporary file %s is left in the wiki (%w): the owner can remove it", tmp, rerr))
		}
		return Note{}, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "write note %q: %w", n, err)
	}
	mod := time.Now()
	if fi, err := root.Stat(n + ext); err == nil {
		mod = fi.ModTime()
	}
	return Note{Name: n, Title: title(body, n), Body: body, Modified: mod}, nil
}

// checkLinks turns a symlink on the way to note n that leads outside the
// wiki into EINVALID. os.Root refuses such paths anyway; this only gives the
// refusal a code and a sentence.
func checkLinks(root *os.Root, n string) error {
	p := ""
	for i, seg := range strings.Split(n, "/") {
		if i > 0 {
			p += "/"
		}
		p += seg
		file := p
		if p == n {
			file += ext
		}
		fi, err := root.Lstat(file)
		if err != nil {
			return nil // missing: nothing further can be a link
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			continue
		}
		if _, err := root.Stat(file); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "note name %q goes through the symlink %q, which leads outside the wiki directory", n, file)
		}
	}
	return nil
}

// cleanName returns the canonical form of a note name: trimmed, without
// trailing ".md", checked to stay inside the wiki directory.
func cleanName(name string) (string, error) {
	n := strings.TrimSpace(name)
	for len(n) >= len(ext) && strings.EqualFold(n[len(n)-len(ext):], ext) {
		n = n[:len(n)-len(ext)]
	}
	switch {
	case n == "":
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, "note name %q is empty: name notes like projects/garden", name)
	case len(n) > MaxName:
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, "note name is %d bytes; the most is %d", len(n), MaxName)
	case strings.ContainsRune(n, 0):
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, "note name %q contains a NUL byte", name)
	case strings.Contains(n, `\`):
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, "note name %q contains a backslash: separate folders with /", name)
	case strings.HasPrefix(n, "/"):
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, "note name %q is absolute: names are relative to the wiki, like projects/garden", name)
	}
	for _, seg := range strings.Split(n, "/") {
		switch {
		case seg == "":
			return "", jarvisbot.Errorf(jarvisbot.EINVALID, "note name %q has an empty part: write folders as a/b, without doubled or trailing /", name)
		case seg == "." || seg == "..":
			return "", jarvisbot.Errorf(jarvisbot.EINVALID, "note name %q contains %q: names cannot leave the wiki or refer to a folder itself", name, seg)
		case seg[0] == '.':
			return "", jarvisbot.Errorf(jarvisbot.EINVALID, "note name %q has a part starting with a dot, which the wiki keeps hidden", name)
		case seg[0] == ' ' || seg[len(seg)-1] == ' ':
			return "", jarvisbot.Errorf(jarvisbot.EINVALID, "note name %q has a part starting or ending with a space", name)
		}
		for _, r := range seg {
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune("-_ .", r) {
				return "", jarvisbot.Errorf(jarvisbot.EINVALID, "note name %q contains %q: use letters, digits, '-', '_', ' ', '.' and / between folders", name, r)
			}
		}
	}
	return n, nil
}

// addressable reports whether n, a file's path without ".md", is a name
// that cleans to itself.
func addressable(n string) bool {
	c, err := cleanName(n)
	return err == nil && c == n
}

// title returns the first "# " heading of body outside code fences, else
// name.
func title(body, name string) string {
	fence := ""
	for line := range strings.Lines(body) {
		line = strings.TrimRight(line, "\r\n")
		t := strings.TrimLeft(line, " ")
		if len(line)-len(t) > 3 {
			continue // indented code
		}
		if fence != "" {
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = t[:3]
			continue
		}
		if h, ok := strings.CutPrefix(t, "# "); ok {
			h = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(h), "#"))
			if h != "" {
				return h
			}
		}
	}
	return name
}

// queryWords returns the distinct folded words of a query, without the
// punctuation around them.
func queryWords(query string) []string {
	var words []string
	seen := map[string]bool{}
	for _, f := range strings.Fields(fold(query)) {
		f = strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		if f != "" && !seen[f] {
			seen[f] = true
			words = append(words, f)
		}
	}
	return words
}

// Ranking weights. Each key must outweigh every lower key at its largest
// (titleWeight * number of words < matchWeight for queries up to maxWords).
const (
	maxWords    = 50
	maxCount    = 99
	titleWeight = maxCount + 1
	matchWeight = titleWeight * (maxWords + 1)
)

// match scores note n against the folded query words.
func match(n Note, words []string) (Hit, bool) {
	if len(words) > maxWords {
		words = words[:maxWords]
	}
	head := fold(n.Title + "\n" + n.Name)
	body := fold(n.Body)
	matched, inTitle, count := 0, 0, 0
	first := -1
	for _, w := range words {
		t := strings.Contains(head, w)
		b := strings.Index(body, w)
		if !t && b < 0 {
			continue
		}
		matched++
		if t {
			inTitle++
		}
		if b >= 0 {
			count += strings.Count(body, w)
			if first < 0 || b < first {
				first = b
			}
		}
	}
	if matched == 0 {
		return Hit{}, false
	}
	count = min(count, maxCount)
	score := float64(matched*matchWeight + inTitle*titleWeight + count)
	return Hit{Name: n.Name, Title: n.Title, Snippet: snippet(n.Body, first), Score: score}, true
}

// snippet returns about 160 bytes of body around the folded offset at, on
// one line; with at < 0 it returns the start of the body after its title.
func snippet(body string, at int) string {
	const before, after = 60, 100
	if at < 0 {
		body = strings.TrimLeft(body, " \t\r\n")
		if strings.HasPrefix(body, "# ") {
			_, body, _ = strings.Cut(body, "\n")
		}
		at = 0
	} else {
		at = origOffset(body, at)
	}
	return excerpt.Around(body, at, before, after)
}

// origOffset maps a byte offset in fold(s) back to the start of the rune of
// s it came from.
func origOffset(s string, folded int) int {
	n := 0
	var buf [8]byte
	for i, r := range s {
		n += len(words.AppendFold(buf[:0], r))
		if n > folded {
			return i
		}
	}
	return len(s)
}

// fold lowercases s and strips its diacritics, so that "Müller", "MÜLLER"
// and "muller" compare equal.
func fold(s string) string {
	b := make([]byte, 0, len(s))
	for _, r := range s {
		b = words.AppendFold(b, r)
	}
	return string(b)
}

// closeNames returns up to limit of names that look like what was meant by
// name: same name in another case or folder, or a few typos away.
func closeNames(name string, names []string, limit int) []string {
	want := fold(name)
	wantBase := path.Base(want)
	type cand struct {
		name string
		dist int
	}
	var cs []cand
	for _, n := range names {
		f := fold(n)
		d := distance(want, f)
		switch {
		case f == want:
			d = 0
		case path.Base(f) == wantBase:
			d = 1
		case d <= max(1, len(want)/4):
		case len(want) >= 3 && strings.Contains(f, want):
			d = len(f) - len(want)
		default:
			continue
		}
		cs = append(cs, cand{n, d})
	}
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].dist != cs[j].dist {
			return cs[i].dist < cs[j].dist
		}
		return cs[i].name < cs[j].name
	})
	out := make([]string, 0, min(len(cs), limit))
	for _, c := range cs[:min(len(cs), limit)] {
		out = append(out, c.name)
	}
	return out
}

// distance is the Levenshtein distance between a and b, in runes.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// quoteList renders names as "a", "b" or "c".
func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = `"` + n + `"`
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// ReadBody reads a note's text from r (the owner's stdin), refusing more
// than a note may hold without reading all of it. name says what r is.
func ReadBody(r io.Reader, name string) (string, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxBody+1))
	if err != nil {
		return "", jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "read %s: %w", name, err)
	}
	if len(b) > MaxBody {
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, "%s holds more than %d bytes, the most a note may hold: split it into several notes", name, MaxBody)
	}
	return string(b), nil
}
