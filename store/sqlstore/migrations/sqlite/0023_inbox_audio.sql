-- Voice notes and audio files received (V1) are kept in the inbox until
-- they are transcribed: while no transcription endpoint is set they wait,
-- and the owner is told once (audio_told) what to set; once transcribed
-- the audio goes and audio_heard marks the text as what was heard.
ALTER TABLE inbox ADD COLUMN audio BLOB;
ALTER TABLE inbox ADD COLUMN audio_mime TEXT NOT NULL DEFAULT '';
ALTER TABLE inbox ADD COLUMN audio_ms INTEGER NOT NULL DEFAULT 0;
ALTER TABLE inbox ADD COLUMN audio_voice INTEGER NOT NULL DEFAULT 0;
ALTER TABLE inbox ADD COLUMN audio_file TEXT NOT NULL DEFAULT '';
ALTER TABLE inbox ADD COLUMN audio_told INTEGER NOT NULL DEFAULT 0;
ALTER TABLE inbox ADD COLUMN audio_heard INTEGER NOT NULL DEFAULT 0;
