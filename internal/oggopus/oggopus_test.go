package oggopus

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// voicenote.ogg is a real voice note: espeak-ng speaking one sentence,
// encoded by opusenc (opus-tools 0.2); opusinfo says mono, pre-skip 312,
// original rate 22050 Hz, 6 pages, playback length 3.775 s.
func realNote(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/voicenote.ogg")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestCheckReadsARealVoiceNote_V1(t *testing.T) {
	info, err := Check(realNote(t))
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	want := Info{Channels: 1, PreSkip: 312, InputSampleRate: 22050, Duration: (181513 - 312) * time.Second / 48000, Pages: 6}
	if info != want {
		t.Errorf("Check = %+v, want %+v", info, want)
	}
	if got := info.Duration.Round(time.Millisecond); got != 3775*time.Millisecond {
		t.Errorf("duration %v, want opusinfo's 3.775 s", got)
	}
}

// page is one hand-made OGG page; build gives it a correct CRC unless bad.
type page struct {
	flags   byte
	granule int64
	serial  uint32
	seq     uint32
	packets [][]byte
	open    bool // the last packet (a multiple of 255 bytes here) continues on the next page
}

func (p page) build() []byte {
	var lacing, body []byte
	for i, pk := range p.packets {
		n := len(pk)
		for n >= 255 {
			lacing = append(lacing, 255)
			n -= 255
		}
		if !(p.open && i == len(p.packets)-1) {
			lacing = append(lacing, byte(n))
		}
		body = append(body, pk...)
	}
	h := make([]byte, headerLen, headerLen+len(lacing)+len(body))
	copy(h, "OggS")
	h[5] = p.flags
	binary.LittleEndian.PutUint64(h[6:], uint64(p.granule))
	binary.LittleEndian.PutUint32(h[14:], p.serial)
	binary.LittleEndian.PutUint32(h[18:], p.seq)
	h[26] = byte(len(lacing))
	out := append(append(h, lacing...), body...)
	binary.LittleEndian.PutUint32(out[22:], crc(out))
	return out
}

func opusHead(channels byte, preSkip uint16) []byte {
	h := []byte("OpusHead\x01")
	h = append(h, channels)
	h = binary.LittleEndian.AppendUint16(h, preSkip)
	h = binary.LittleEndian.AppendUint32(h, 16000)
	h = append(h, 0, 0, 0) // gain, mapping family 0
	return h
}

var opusTags = append([]byte("OpusTags\x04\x00\x00\x00test"), 0, 0, 0, 0)

// audio is a 20 ms Opus packet's worth of bytes: TOC byte of a SILK 20 ms
// frame, then filler; Check reads no audio, only its framing.
func audio(n int) []byte { return append([]byte{0x08}, bytes.Repeat([]byte{0x55}, n-1)...) }

func stream(pages ...page) []byte {
	var out []byte
	for _, p := range pages {
		out = append(out, p.build()...)
	}
	return out
}

// good is a minimal valid stream: head, tags, two audio pages of 20 ms
// packets (960 samples at 48 kHz each).
func good() []page {
	return []page{
		{flags: flagBOS, serial: 7, seq: 0, packets: [][]byte{opusHead(1, 312)}},
		{serial: 7, seq: 1, packets: [][]byte{opusTags}},
		{serial: 7, seq: 2, granule: 312 + 2*960, packets: [][]byte{audio(40), audio(300)}},
		{flags: flagEOS, serial: 7, seq: 3, granule: 312 + 3*960, packets: [][]byte{audio(40)}},
	}
}

func TestCheckHandMadeStreams_V1(t *testing.T) {
	mp3 := append([]byte("ID3\x04\x00\x00\x00\x00\x00\x00"), bytes.Repeat([]byte{0xff, 0xfb, 0x90, 0x00}, 8)...)
	withPages := func(edit func(p []page) []page) []byte { return stream(edit(good())...) }
	cases := []struct {
		name     string
		data     []byte
		want     error
		mentions string
	}{
		{"empty", nil, ErrNotOGG, "empty"},
		{"mp3", mp3, ErrNotOGG, "MP3"},
		{"json error page", []byte(`{"error":"nope"}`), ErrNotOGG, "text"},
		{"bad crc", func() []byte {
			b := stream(good()...)
			b[len(b)-3] ^= 0x40
			return b
		}(), ErrBadCRC, "page 4"},
		{"cut inside a page", func() []byte {
			b := stream(good()...)
			return b[:len(b)-10]
		}(), ErrTruncated, "page 4"},
		{"cut inside a page header", func() []byte {
			b := stream(good()...)
			return b[:len(stream(good()[:3]...))+12]
		}(), ErrTruncated, "page 4"},
		{"cut at a page boundary", stream(good()[:3]...), ErrTruncated, "end-of-stream"},
		{"headers only", withPages(func(p []page) []page {
			p[1].flags = flagEOS
			return p[:2]
		}), ErrMalformed, "no audio"},
		{"vorbis", withPages(func(p []page) []page {
			p[0].packets = [][]byte{[]byte("\x01vorbis\x00\x00\x00\x00\x02\x44\xac\x00\x00")}
			return p
		}), ErrNotOpus, "Vorbis"},
		{"tags missing", withPages(func(p []page) []page {
			p[1].packets = [][]byte{audio(20)}
			return p
		}), ErrNotOpus, "OpusTags"},
		{"head not alone on its page", withPages(func(p []page) []page {
			p[0].packets = append(p[0].packets, opusTags)
			p = append(p[:1], p[2:]...)
			for i := range p {
				p[i].seq = uint32(i)
			}
			return p
		}), ErrNotOpus, "nothing else"},
		{"audio on the tags page", withPages(func(p []page) []page {
			p[1].packets = append(p[1].packets, audio(10))
			return p
		}), ErrMalformed, "new page"},
		{"missing page", withPages(func(p []page) []page {
			return append(p[:2], p[3])
		}), ErrMalformed, "sequence number 3 where 2"},
		{"second stream", withPages(func(p []page) []page {
			p[2].flags = flagBOS
			return p
		}), ErrMalformed, "second logical stream"},
		{"other serial", withPages(func(p []page) []page {
			p[3].serial = 8
			return p
		}), ErrMalformed, "multiplexed"},
		{"bytes after the end", append(stream(good()...), stream(page{flags: flagBOS, serial: 9, packets: [][]byte{opusHead(1, 0)}})...), ErrMalformed, "end-of-stream page"},
		{"garbage after the end", append(stream(good()...), "xyz"...), ErrMalformed, "stray"},
		{"zero channels", withPages(func(p []page) []page {
			p[0].packets = [][]byte{opusHead(0, 312)}
			return p
		}), ErrMalformed, "0 channels"},
		{"granule before pre-skip", withPages(func(p []page) []page {
			p[2].granule, p[3].granule = 100, 200
			return p
		}), ErrMalformed, "pre-skip"},
		{"granule goes back", withPages(func(p []page) []page {
			p[3].granule = 1000
			return p
		}), ErrMalformed, "back in time"},
		{"granule past what the packets hold", withPages(func(p []page) []page {
			p[3].granule = 1 << 62
			return p
		}), ErrMalformed, "can hold"},
		{"continuation without an open packet", withPages(func(p []page) []page {
			p[2].flags = flagCont
			return p
		}), ErrMalformed, "none was open"},
		{"open packet never finished", withPages(func(p []page) []page {
			p[3].packets = [][]byte{audio(255)}
			p[3].open = true
			return p
		}), ErrTruncated, "unfinished"},
		{"too large", make([]byte, MaxSize+1), ErrTooLarge, "at most"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Check(c.data)
			if !errors.Is(err, c.want) {
				t.Fatalf("Check: %v, want %v", err, c.want)
			}
			if !strings.Contains(err.Error(), c.mentions) {
				t.Errorf("error %q does not say %q", err, c.mentions)
			}
		})
	}
}

func TestCheckHandMadeGoodStream_V1(t *testing.T) {
	pages := good()
	// a packet that spans pages 2 and 3, as long packets do
	pages[2].packets = append(pages[2].packets, audio(510)) // a page ends a packet's part on a 255 lacing value
	pages[2].open = true
	pages[3].flags |= flagCont
	pages[3].packets = [][]byte{bytes.Repeat([]byte{1}, 90), audio(40)}
	pages[3].granule = 312 + 4*960
	info, err := Check(stream(pages...))
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	if want := (Info{Channels: 1, PreSkip: 312, InputSampleRate: 16000, Duration: 80 * time.Millisecond, Pages: 4}); info != want {
		t.Errorf("Check = %+v, want %+v", info, want)
	}
}

func TestCRCMatchesOpusencsPages(t *testing.T) {
	b := realNote(t)
	if got, want := crc(b[:47]), binary.LittleEndian.Uint32(b[22:26]); got != want {
		t.Errorf("crc of the first page = %#x, opusenc wrote %#x", got, want)
	}
}

// FuzzCheck feeds Check hostile bytes: it must never panic, never report
// success with nonsense (a duration below zero, no channels), and wrap one
// of its sentinel errors on failure.
func FuzzCheck(f *testing.F) {
	f.Add(realNote(f))
	f.Add(stream(good()...))
	f.Add([]byte("OggS"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		// as given, and with every page's checksum made right, so that
		// mutations reach the checks behind the CRC
		for _, d := range [][]byte{data, withGoodCRCs(data)} {
			info, err := Check(d)
			if err == nil {
				if info.Channels < 1 || info.Duration < 0 || info.Pages < 3 {
					t.Fatalf("accepted with %+v", info)
				}
				continue
			}
			if !slices.ContainsFunc([]error{ErrNotOGG, ErrBadCRC, ErrNotOpus, ErrTruncated, ErrMalformed, ErrTooLarge},
				func(e error) bool { return errors.Is(err, e) }) {
				t.Fatalf("error wraps no sentinel: %v", err)
			}
		}
	})
}

// withGoodCRCs returns a copy of data with the checksum of each whole page
// it can find recomputed.
func withGoodCRCs(data []byte) []byte {
	d := bytes.Clone(data)
	for off := 0; off+headerLen <= len(d) && string(d[off:off+4]) == "OggS"; {
		nseg := int(d[off+26])
		if off+headerLen+nseg > len(d) {
			break
		}
		n := headerLen + nseg
		for _, l := range d[off+headerLen : off+headerLen+nseg] {
			n += int(l)
		}
		if off+n > len(d) {
			break
		}
		binary.LittleEndian.PutUint32(d[off+22:], crc(d[off:off+n]))
		off += n
	}
	return d
}

func BenchmarkCheck(b *testing.B) {
	data := realNote(b)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Check(data); err != nil {
			b.Fatal(err)
		}
	}
}
