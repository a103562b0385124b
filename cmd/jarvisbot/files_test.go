package main

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/internal/fakes/fakediscord"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakepdf"
	"github.com/jarvisbot/jarvisbot/internal/fakes/faketelegram"
)

// jpegOf is a w×h photo with a colour gradient.
func jpegOf(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.SetRGBA(x, y, color.RGBA{uint8(x), uint8(y), 90, 255})
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// sizeOf is the size of an image the model got.
func sizeOf(t *testing.T, img fakellm.Image) (int, int) {
	t.Helper()
	cfg, format, err := image.DecodeConfig(bytes.NewReader(img.Data))
	if err != nil || format != "jpeg" || img.MediaType != "image/jpeg" {
		t.Fatalf("the model got %s %q (%v), want a JPEG", img.MediaType, format, err)
	}
	return cfg.Width, cfg.Height
}

// TestTelegramPhotoReachesTheModelCH4: a photo sent on Telegram is
// downloaded in its largest size from the Bot API's file endpoint, scaled
// to 1568 px on its longest side and sent to the model (Anthropic's wire
// format) as an image block beside its caption; the file is kept in the
// chat's folder, and the next turn's history has only the note of it.
func TestTelegramPhotoReachesTheModelCH4(t *testing.T) {
	e, f, tg := ownerOnTelegram(t)
	e.vars["JARVIS_MODEL"] = "claude-test"
	out, stop := startServe(t, e)
	defer stop()
	waitOutput(t, out, "jarvisbot is ready")

	f.Push(fakellm.Step{Text: "That is a **fern**."}, fakellm.Step{Text: "Twice a week."})
	tg.SendPhoto(42, 42, "what plant is this?",
		faketelegram.PhotoSize{Data: jpegOf(t, 90, 60), Width: 90, Height: 60},
		faketelegram.PhotoSize{Data: jpegOf(t, 2000, 1500), Width: 2000, Height: 1500})
	waitSent(t, tg, "the answer to the photo", func(s []faketelegram.Sent) bool { return hasText(s, 42, "fern") })
	tg.SendText(42, 42, "how often should I water it?")
	waitSent(t, tg, "the next answer", func(s []faketelegram.Sent) bool { return hasText(s, 42, "Twice a week") })

	reqs := f.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls, want 2", len(reqs))
	}
	last := reqs[0].Messages[len(reqs[0].Messages)-1]
	if len(last.Images) != 1 {
		t.Fatalf("the photo's turn carries %d images, want 1", len(last.Images))
	}
	if w, h := sizeOf(t, last.Images[0]); w != 1568 || h != 1176 {
		t.Errorf("the model got %d×%d, want the large size scaled to 1568×1176", w, h)
	}
	if !strings.Contains(last.Text, "what plant is this?") || !strings.Contains(last.Text, "[photo: 2000×1500 JPEG") {
		t.Errorf("the photo's message reads %q, want its note and caption", last.Text)
	}
	for _, m := range reqs[1].Messages {
		if len(m.Images) > 0 {
			t.Error("the next turn carries the image again")
		}
	}
	if !strings.Contains(reqs[1].Messages[0].Text, "[photo: 2000×1500 JPEG") {
		t.Errorf("the next turn's history lacks the photo's note: %q", reqs[1].Messages[0].Text)
	}
	kept, _ := filepath.Glob(filepath.Join(e.vars["JARVIS_DATA_DIR"], "files", "telegram_42", "*-photo.jpg"))
	if len(kept) != 1 {
		t.Fatalf("kept %v, want the photo in the chat's folder", kept)
	}
	if info, err := os.Stat(kept[0]); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("the kept photo: %v %v, want mode 0600", info, err)
	}
}

// TestDiscordImageReachesTheModelCH4: an image attached in the owner's
// Discord DM is downloaded from its attachment link and reaches an
// OpenAI-compatible model as an image_url part with a data URL.
func TestDiscordImageReachesTheModelCH4(t *testing.T) {
	e := newTestEnv(t)
	f := fakellm.New(t)
	e.vars["JARVIS_PROVIDER"], e.vars["JARVIS_MODEL"] = "openai", "gpt-4.1-mini"
	e.vars["OPENAI_API_KEY"], e.vars["OPENAI_BASE_URL"] = "test-key", f.OpenAIURL()
	dc := fakediscord.New(t)
	dc.OwnAddressLinks = true // reached as discord.api_base, which forwards the API host only
	e.vars["DISCORD_BOT_TOKEN"], e.vars["JARVIS_DISCORD_API_BASE"] = dc.Token(), dc.URL()
	e.vars["JARVIS_DISCORD_OWNERS"] = "777"
	out, stop := startServe(t, e)
	defer stop()
	if !dc.WaitConnected(1, 10*time.Second) {
		t.Fatalf("no gateway session:\n%s", out.String())
	}
	dm := dc.DMChannel("777")
	f.Push(fakellm.Step{Text: "A receipt for 12 euros."})
	dc.Post(dm, "777", fakediscord.UserMessage{Text: "what does this say?", Attachments: []fakediscord.Attachment{
		{FileName: "receipt.png", ContentType: "image/jpeg", Data: jpegOf(t, 640, 480)}}})
	waitFor(t, "the answer on Discord", func() (bool, any) {
		sent := dc.Sent()
		for _, m := range sent {
			if m.ChannelID == dm && strings.Contains(m.Content, "12 euros") {
				return true, sent
			}
		}
		return false, sent
	})
	reqs := f.Requests()
	last := reqs[0].Messages[len(reqs[0].Messages)-1]
	if reqs[0].API != "openai" || len(last.Images) != 1 {
		t.Fatalf("%s request with %d images, want one on Chat Completions", reqs[0].API, len(last.Images))
	}
	if w, h := sizeOf(t, last.Images[0]); w != 640 || h != 480 {
		t.Errorf("the model got %d×%d, want 640×480 (within the limit, not scaled)", w, h)
	}
	if !strings.Contains(last.Text, "what does this say?") || !strings.Contains(last.Text, "receipt.png") {
		t.Errorf("the message reads %q, want the caption and the file's name", last.Text)
	}
}

// TestPhotoForAModelWithoutImagesCH4: a model not known to take images
// is not called for a photo; the owner is told which setting changes that.
func TestPhotoForAModelWithoutImagesCH4(t *testing.T) {
	e, f, tg := ownerOnTelegram(t) // "test-model": not known to take images
	out, stop := startServe(t, e)
	defer stop()
	waitOutput(t, out, "jarvisbot is ready")
	tg.SendPhoto(42, 42, "what plant is this?", faketelegram.PhotoSize{Data: jpegOf(t, 300, 200), Width: 300, Height: 200})
	waitSent(t, tg, "the answer to the photo", func(s []faketelegram.Sent) bool { return hasText(s, 42, "provider.images: true") })
	if n := len(f.Requests()); n != 0 {
		t.Errorf("the model was called %d times for a photo it cannot see", n)
	}
}

// TestOversizeFileRefusedBeforeDownloadCH4: a file Telegram announces at
// 30 MB gets one sentence saying the limit; nothing is downloaded and the
// model is not called.
func TestOversizeFileRefusedBeforeDownloadCH4(t *testing.T) {
	e, f, tg := ownerOnTelegram(t)
	e.vars["JARVIS_MODEL"] = "claude-test"
	out, stop := startServe(t, e)
	defer stop()
	waitOutput(t, out, "jarvisbot is ready")
	tg.SendMedia(42, 42, faketelegram.Media{Kind: "document", Data: []byte("%PDF-1.4 tiny"), MIME: "application/pdf", FileName: "scan.pdf", Size: 30 << 20})
	tg.SendDocument(42, 42, []byte("PK\x03\x04"), "application/zip", "photos.zip", "")
	waitSent(t, tg, "the refusals", func(s []faketelegram.Sent) bool {
		return hasText(s, 42, "scan.pdf") && hasText(s, 42, "up to 20 MB") && hasText(s, 42, "photos.zip")
	})
	if n, m := tg.Calls("getFile"), tg.Calls("file"); n+m != 0 {
		t.Errorf("%d getFile calls and %d downloads for files refused by their announcement", n, m)
	}
	if n := len(f.Requests()); n != 0 {
		t.Errorf("the model was called %d times", n)
	}
}

// TestPDFIsReadAndAnsweredCH4: a PDF made in the test, sent on Telegram,
// is downloaded, its text read in the process and handed to the model as
// a document block named after the file; a longer one comes with the cap
// said; both are kept in the chat's folder, and memory search finds the
// contract by what it says.
func TestPDFIsReadAndAnsweredCH4(t *testing.T) {
	e, f, tg := ownerOnTelegram(t)
	out, stop := startServe(t, e)
	defer stop()
	waitOutput(t, out, "jarvisbot is ready")
	contract := fakepdf.Write(
		fakepdf.Page{Lines: []string{"Tenancy agreement", "The rent is 950 euros a month."}},
		fakepdf.Page{CID: true, Lines: []string{"Notice period: three months."}},
	)
	var long []fakepdf.Page
	for i := range 60 {
		long = append(long, fakepdf.Page{Lines: []string{fmt.Sprintf("Clause %d applies.", i+1)}})
	}
	f.Push(fakellm.Step{Text: "The rent is **950 euros**; notice is three months."}, fakellm.Step{Text: "I read the first 50 pages."})
	tg.SendDocument(42, 42, contract, "application/pdf", "contract.pdf", "summarise this contract")
	waitSent(t, tg, "the answer to the PDF", func(s []faketelegram.Sent) bool { return hasText(s, 42, "950 euros") })
	tg.SendDocument(42, 42, fakepdf.Write(long...), "application/pdf", "annex.pdf", "")
	waitSent(t, tg, "the answer to the long PDF", func(s []faketelegram.Sent) bool { return hasText(s, 42, "first 50 pages") })

	reqs := f.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls, want 2", len(reqs))
	}
	last := reqs[0].Messages[len(reqs[0].Messages)-1]
	if len(last.Documents) != 1 || last.Documents[0].Name != "contract.pdf" {
		t.Fatalf("the turn carries documents %+v, want contract.pdf", last.Documents)
	}
	for _, want := range []string{"The rent is 950 euros a month.", "Notice period: three months."} {
		if !strings.Contains(last.Documents[0].Text, want) {
			t.Errorf("the model did not get %q:\n%s", want, last.Documents[0].Text)
		}
	}
	if !strings.Contains(last.Text, "summarise this contract") || !strings.Contains(last.Text, "[file: contract.pdf") {
		t.Errorf("the message reads %q", last.Text)
	}
	annex := reqs[1].Messages[len(reqs[1].Messages)-1]
	if len(annex.Documents) != 1 || !strings.Contains(annex.Documents[0].Text, "only its first 50 of 60 pages were read") || strings.Contains(annex.Documents[0].Text, "Clause 51") {
		t.Errorf("the long PDF reached the model as %+v, want 50 pages and the cap said", annex.Documents)
	}
	if len(reqs[1].Messages[0].Documents) != 0 {
		t.Error("the contract's text came again in the next turn")
	}
	kept, _ := filepath.Glob(filepath.Join(e.vars["JARVIS_DATA_DIR"], "files", "telegram_42", "*.pdf"))
	if len(kept) != 2 {
		t.Errorf("kept %v, want both PDFs", kept)
	}
	// "The contract I sent": found later by what it says, not only its name.
	if found := e.mustJarvis(t, "", "memory", "search", "notice", "period"); !strings.Contains(found, "Notice period: three months") {
		t.Errorf("memory search does not find the contract's text:\n%s", found)
	}
}

// TestPhotoAnsweredAfterRestartCH4: a photo whose turn the shutdown
// stopped waits in the inbox with its bytes; after the restart the model
// gets the image again, and the photo's message is in the history once.
func TestPhotoAnsweredAfterRestartCH4(t *testing.T) {
	e, f, tg := ownerOnTelegram(t)
	e.vars["JARVIS_MODEL"] = "claude-test"
	e.vars["JARVIS_SHUTDOWN_TIMEOUT"] = "300ms"
	out, stop := startServe(t, e)
	waitOutput(t, out, "jarvisbot is ready")
	f.Push(fakellm.Step{Hang: true})
	tg.SendPhoto(42, 42, "is this ripe?", faketelegram.PhotoSize{Data: jpegOf(t, 400, 300), Width: 400, Height: 300})
	waitFor(t, "the model call", func() (bool, any) { r := f.Requests(); return len(r) == 1, r })
	stop()

	f.Push(fakellm.Step{Text: "Not yet: give it two days."})
	out2, stop2 := startServe(t, e)
	defer stop2()
	waitSent(t, tg, "the answer after the restart", func(s []faketelegram.Sent) bool { return hasText(s, 42, "two days") })
	reqs := f.Requests()
	last := reqs[len(reqs)-1]
	images := 0
	for _, m := range last.Messages {
		images += len(m.Images)
	}
	if images != 1 {
		t.Errorf("the turn after the restart carries %d images, want the photo's\n%s", images, out2.String())
	}
	if got := strings.Count(fmt.Sprint(last.Messages), "is this ripe?"); got != 1 {
		t.Errorf("the photo's message is %d times in the history", got)
	}
}
