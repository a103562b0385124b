package app

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/jarvisbot/jarvisbot/agents/speech"
	"github.com/jarvisbot/jarvisbot/internal/config"
)

// voiceOf is the desk's ears and voice (V1) as the config sets them:
// transcribe is nil without a transcription endpoint, speak nil when
// answers are not spoken back; noTranscription says what to set. A
// setting that cannot work is logged and left off, and serve goes on.
func (a *Env) VoiceOf(ctx context.Context, cfg config.Config, log *slog.Logger) (
	transcribe func(ctx context.Context, audio []byte, mime, fileName string) (string, error),
	speak func(ctx context.Context, text string) ([]byte, time.Duration, error),
	noTranscription string,
) {
	noTranscription = "I got your voice note, but I cannot listen to it yet: no transcription endpoint is set. " +
		"Set transcription.base_url in the config (or JARVIS_TRANSCRIPTION_BASE_URL): https://api.openai.com/v1 " +
		"with its key stored by `jarvisbot secrets set " + config.SecretTranscriptionKey + "`, or your own whisper server, " +
		"and restart jarvisbot. I kept the note and will answer it then."
	t := cfg.Transcription
	if t.BaseURL == "" {
		return nil, nil, noTranscription
	}
	keyName := cmp.Or(t.APIKeySecret, config.SecretTranscriptionKey)
	tr, err := speech.NewTranscriber(speech.Endpoint{BaseURL: t.BaseURL, APIKey: a.SecretOrEnv(ctx, cfg, keyName),
		Model: cmp.Or(t.Model, config.DefaultTranscriptionModel), KeyName: keyName})
	if err != nil {
		log.Error("voice notes are not transcribed: the transcription settings do not work", "err", err)
		return nil, nil, fmt.Sprintf("I cannot listen to voice notes: %v. Your note is kept and answered once that is fixed and jarvisbot restarted.", err)
	}
	transcribe = tr.Transcribe
	v := cfg.Voice
	if !v.SpeaksBack() {
		return transcribe, nil, noTranscription
	}
	speechKey := cmp.Or(v.APIKeySecret, keyName)
	sp, err := speech.NewSpeaker(speech.Endpoint{BaseURL: cmp.Or(v.BaseURL, t.BaseURL), APIKey: a.SecretOrEnv(ctx, cfg, speechKey),
		Model: cmp.Or(v.Model, config.DefaultSpeechModel), KeyName: speechKey}, cmp.Or(v.Voice, config.DefaultSpeechVoice))
	if err != nil {
		log.Error("answers are not spoken back: the voice settings do not work", "err", err)
		return transcribe, nil, noTranscription
	}
	return transcribe, func(ctx context.Context, text string) ([]byte, time.Duration, error) {
		return sp.Speak(ctx, speech.Plain(text))
	}, noTranscription
}
