package speech_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/agents/speech"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakespeech"
)

// requestWords is the vocabulary the recognizer below listens for: a
// home assistant's everyday requests. Debian's pocketsphinx with its
// general US English model mishears espeak-ng's synthetic voice badly
// ("the weather…" became "whether you do…"); limited to a vocabulary, as
// command recognizers are, it hears most words right.
const requestWords = "a | all | and | at | call | close | door | for | front | garage | in | is | kitchen | lamp | light | lights | living | me | milk | minutes | morning | mother | music | my | of | off | on | open | play | please | remind | room | set | start | stop | ten | the | timer | to | tomorrow | turn | what | weather"

// TestTranscribeRealSpeechWithPocketsphinx_V1 sends a sentence spoken by
// espeak-ng through the Transcriber to a tiny OpenAI-compatible server
// that really listens: opusdec decodes the OGG/Opus upload and Debian's
// pocketsphinx recognizes it, offline. The words must mostly come back.
func TestTranscribeRealSpeechWithPocketsphinx_V1(t *testing.T) {
	const sentence = "please call my mother tomorrow morning"
	const need = "apt-get install espeak-ng opus-tools pocketsphinx pocketsphinx-en-us"
	for _, tool := range []string{"opusdec", "pocketsphinx_continuous"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed, so nothing can listen (%s)", tool, need)
		}
	}
	if _, err := os.Stat("/usr/share/pocketsphinx/model/en-us/en-us"); err != nil {
		t.Skipf("pocketsphinx's US English model is not installed (%s)", need)
	}
	audio := fakespeech.Spoken(t, sentence)

	dir := t.TempDir()
	grammar := filepath.Join(dir, "requests.gram")
	if err := os.WriteFile(grammar, []byte("#JSGF V1.0;\ngrammar requests;\npublic <request> = <word>+;\n<word> = "+requestWords+";\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	listener := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fail := func(err error, out []byte) {
			http.Error(w, err.Error()+": "+string(out), http.StatusInternalServerError)
		}
		f, _, err := r.FormFile("file")
		if err != nil {
			fail(err, nil)
			return
		}
		b, err := io.ReadAll(f)
		if err != nil {
			fail(err, nil)
			return
		}
		ogg, wav := filepath.Join(dir, "in.ogg"), filepath.Join(dir, "in.wav")
		if err := os.WriteFile(ogg, b, 0o600); err != nil {
			fail(err, nil)
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), time.Minute)
		defer cancel()
		if out, err := exec.CommandContext(ctx, "opusdec", "--quiet", "--rate", "16000", ogg, wav).CombinedOutput(); err != nil {
			fail(err, out)
			return
		}
		heard, err := exec.CommandContext(ctx, "pocketsphinx_continuous", "-jsgf", grammar, "-infile", wav, "-logfn", "/dev/null").Output()
		if err != nil {
			fail(err, heard)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{"text": string(heard)}) // a failed write means the client is gone
	}))
	t.Cleanup(listener.Close)

	tr, err := speech.NewTranscriber(speech.Endpoint{BaseURL: listener.URL + "/v1", Model: "pocketsphinx"})
	if err != nil {
		t.Fatal(err)
	}
	text, err := tr.Transcribe(context.Background(), audio, "audio/ogg", "")
	if err != nil {
		t.Fatalf("Transcribe: %v", err)
	}
	heard := strings.Fields(text)
	var got []string
	for _, w := range strings.Fields(sentence) {
		if slices.Contains(heard, w) {
			got = append(got, w)
		}
	}
	if 2*len(got) < len(strings.Fields(sentence)) {
		t.Errorf("pocketsphinx heard %q for %q: only %v of the words", text, sentence, got)
	}
	t.Logf("said %q, heard %q", sentence, text)
}
