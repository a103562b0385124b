// Package oggopus checks that bytes are one OGG/Opus stream (V1): what a
// Telegram voice note is, what a transcription endpoint is sent and what a
// speech endpoint must answer before jarvisbot sends it as a voice note.
//
// Check walks the RFC 3533 pages (capture pattern, version, CRC, sequence,
// one logical stream, packet continuation) and the RFC 7845 headers
// (OpusHead alone on the first page, OpusTags next), and reads the length
// from the last page's granule position. It decodes no audio. Every error
// wraps one of the sentinel errors below, so callers tell "not OGG" from
// "truncated" without reading the text, and the text says where (page and
// byte offset) and what was found.
package oggopus

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"
)

// The kinds of failure Check reports; each error wraps exactly one.
var (
	ErrNotOGG    = errors.New("not an OGG file")
	ErrBadCRC    = errors.New("an OGG page's checksum is wrong (the file is damaged)")
	ErrNotOpus   = errors.New("not OGG/Opus")
	ErrTruncated = errors.New("the OGG file is cut short")
	ErrMalformed = errors.New("the OGG/Opus stream is malformed")
	ErrTooLarge  = errors.New("the OGG file is too large")
)

// MaxSize is the most bytes Check reads: the largest file Telegram's Bot
// API takes from a bot (50 MB) is far more than any voice note, and the
// bound keeps a hostile input's cost linear and small.
const MaxSize = 50 << 20

// maxPacketSamples is the longest an Opus packet plays: 120 ms at 48 kHz
// (RFC 6716 section 3.2.5).
const maxPacketSamples = 120 * 48

// granuleRate is Opus's granule clock: always 48 kHz, whatever the input rate.
const granuleRate = 48000

// Info is what Check learned about a stream.
type Info struct {
	Channels        int           // output channels (1 mono, 2 stereo, up to 255)
	PreSkip         int           // samples at 48 kHz to drop at the start
	InputSampleRate int           // the original rate in Hz, for information only; 0 = unspecified
	Duration        time.Duration // playback length: last granule position minus pre-skip, at 48 kHz
	Pages           int           // OGG pages in the stream
}

// page header layout (RFC 3533 section 6).
const (
	headerLen   = 27
	flagCont    = 0x01 // the first packet continues one from the previous page
	flagBOS     = 0x02
	flagEOS     = 0x04
	opusHeadLen = 19
)

// Check reads data as one complete OGG/Opus stream and returns what it
// found, or an error wrapping one of the Err values that says what is
// wrong and where.
func Check(data []byte) (Info, error) {
	var info Info
	if len(data) > MaxSize {
		return info, fmt.Errorf("%w: %d bytes, where at most %d are read", ErrTooLarge, len(data), MaxSize)
	}
	if len(data) < 4 || string(data[:4]) != "OggS" {
		return info, fmt.Errorf("%w: it does not start with the OGG capture pattern \"OggS\"%s", ErrNotOGG, sniff(data))
	}
	var (
		serial      uint32
		lastGranule int64  = -1
		inPacket    bool   // the previous page ended inside a packet
		packets     int    // packets completed so far
		packet      []byte // the header packet being assembled (the first two only)
		sawEOS      bool
	)
	for off := 0; off < len(data); {
		n := info.Pages
		where := func() string { return fmt.Sprintf("page %d (byte %d)", n+1, off) }
		if sawEOS && len(data)-off >= 4 && string(data[off:off+4]) == "OggS" {
			return info, fmt.Errorf("%w: %s follows the end-of-stream page; chained or concatenated streams are not taken", ErrMalformed, where())
		}
		rest := data[off:]
		if len(rest) < headerLen {
			if len(rest) < 4 && string(rest) == "OggS"[:len(rest)] || len(rest) >= 4 && string(rest[:4]) == "OggS" {
				return info, fmt.Errorf("%w: %s has only %d of its %d header bytes", ErrTruncated, where(), len(rest), headerLen)
			}
			return info, fmt.Errorf("%w: %d stray bytes after page %d", ErrMalformed, len(rest), n)
		}
		if sawEOS || string(rest[:4]) != "OggS" {
			if sawEOS {
				return info, fmt.Errorf("%w: %d stray bytes after the end-of-stream page", ErrMalformed, len(rest))
			}
			return info, fmt.Errorf("%w: %s does not start with \"OggS\" (bytes are missing or out of place)", ErrMalformed, where())
		}
		if rest[4] != 0 {
			return info, fmt.Errorf("%w: %s has OGG version %d; only version 0 exists", ErrMalformed, where(), rest[4])
		}
		flags := rest[5]
		if flags&^(flagCont|flagBOS|flagEOS) != 0 {
			return info, fmt.Errorf("%w: %s has unknown header flags %#x", ErrMalformed, where(), flags)
		}
		granule := int64(binary.LittleEndian.Uint64(rest[6:14]))
		pageSerial := binary.LittleEndian.Uint32(rest[14:18])
		seq := binary.LittleEndian.Uint32(rest[18:22])
		sum := binary.LittleEndian.Uint32(rest[22:26])
		nseg := int(rest[26])
		if len(rest) < headerLen+nseg {
			return info, fmt.Errorf("%w: %s lists %d segments but the file ends inside the list", ErrTruncated, where(), nseg)
		}
		lacing := rest[headerLen : headerLen+nseg]
		bodyLen := 0
		for _, l := range lacing {
			bodyLen += int(l)
		}
		pageLen := headerLen + nseg + bodyLen
		if len(rest) < pageLen {
			return info, fmt.Errorf("%w: %s needs %d bytes but only %d are left", ErrTruncated, where(), pageLen, len(rest))
		}
		if got := crc(rest[:pageLen]); got != sum {
			return info, fmt.Errorf("%w: %s says %#08x, its bytes give %#08x", ErrBadCRC, where(), sum, got)
		}

		// One logical stream, in order, starting at its BOS page.
		switch {
		case n == 0 && flags&flagBOS == 0:
			return info, fmt.Errorf("%w: the first page does not begin a stream (no BOS flag)", ErrMalformed)
		case n == 0:
			serial = pageSerial
		case flags&flagBOS != 0:
			return info, fmt.Errorf("%w: %s begins a second logical stream; only one Opus stream is taken", ErrMalformed, where())
		case pageSerial != serial:
			return info, fmt.Errorf("%w: %s belongs to stream %#x, not %#x; multiplexed streams are not taken", ErrMalformed, where(), pageSerial, serial)
		}
		if seq != uint32(n) {
			return info, fmt.Errorf("%w: %s has sequence number %d where %d was due (a page is missing or repeated)", ErrMalformed, where(), seq, n)
		}
		if cont := flags&flagCont != 0; cont != inPacket {
			if cont {
				return info, fmt.Errorf("%w: %s continues a packet, but none was open", ErrMalformed, where())
			}
			return info, fmt.Errorf("%w: %s starts afresh while the previous page left a packet open", ErrMalformed, where())
		}

		// Packets: the first two are the Opus headers.
		body := rest[headerLen+nseg : pageLen]
		pos := 0
		before := packets
		for _, l := range lacing {
			if packets < 2 {
				packet = append(packet, body[pos:pos+int(l)]...)
				if len(packet) > maxHeaderPacket {
					return info, fmt.Errorf("%w: the %s header is larger than %d bytes", ErrMalformed, headerName(packets), maxHeaderPacket)
				}
			}
			pos += int(l)
			inPacket = l == 255
			if inPacket {
				continue
			}
			switch packets {
			case 0:
				if err := readHead(packet, &info); err != nil {
					return info, err
				}
			case 1:
				if len(packet) < 8 || string(packet[:8]) != "OpusTags" {
					return info, fmt.Errorf("%w: the packet after OpusHead is not OpusTags", ErrNotOpus)
				}
				if len(packet) < 12 || uint64(binary.LittleEndian.Uint32(packet[8:12])) > uint64(len(packet)-12) {
					return info, fmt.Errorf("%w: the OpusTags header is cut short", ErrMalformed)
				}
			}
			packets++
			packet = packet[:0]
		}
		// RFC 7845 section 3: OpusHead alone on the first page, and audio
		// starts on a page of its own after OpusTags.
		switch {
		case n == 0 && (packets != 1 || inPacket):
			return info, fmt.Errorf("%w: the first page must hold the OpusHead header and nothing else", ErrNotOpus)
		case before < 2 && packets >= 2 && (packets > 2 || inPacket):
			return info, fmt.Errorf("%w: %s holds audio on the page that ends OpusTags; audio must start on a new page", ErrMalformed, where())
		}
		if granule != -1 && packets > 2 {
			if granule < lastGranule {
				return info, fmt.Errorf("%w: %s goes back in time (granule %d after %d)", ErrMalformed, where(), granule, lastGranule)
			}
			lastGranule = granule
		}
		sawEOS = flags&flagEOS != 0
		info.Pages++
		off += pageLen
	}
	switch {
	case packets == 0:
		return info, fmt.Errorf("%w: the OpusHead header is cut short", ErrTruncated)
	case packets < 2:
		return info, fmt.Errorf("%w: the stream ends before its OpusTags header", ErrTruncated)
	case inPacket:
		return info, fmt.Errorf("%w: the last page leaves a packet unfinished", ErrTruncated)
	case !sawEOS:
		return info, fmt.Errorf("%w: the last page (%d) is not marked end-of-stream", ErrTruncated, info.Pages)
	case packets == 2 || lastGranule < 0:
		return info, fmt.Errorf("%w: there is no audio after the headers", ErrMalformed)
	case lastGranule > int64(packets-2)*maxPacketSamples:
		// This also keeps the duration below from overflowing.
		return info, fmt.Errorf("%w: the last granule position %d is more than its %d audio packets can hold", ErrMalformed, lastGranule, packets-2)
	case lastGranule < int64(info.PreSkip):
		return info, fmt.Errorf("%w: the last granule position %d is before the pre-skip of %d samples", ErrMalformed, lastGranule, info.PreSkip)
	}
	info.Duration = time.Duration(lastGranule-int64(info.PreSkip)) * time.Second / granuleRate
	return info, nil
}

// maxHeaderPacket bounds the header packets Check assembles: OpusTags may
// carry cover art, but a voice note's are a few hundred bytes.
const maxHeaderPacket = 1 << 20

func headerName(i int) string {
	if i == 0 {
		return "OpusHead"
	}
	return "OpusTags"
}

// readHead checks the identification header (RFC 7845 section 5.1).
func readHead(p []byte, info *Info) error {
	if len(p) < 8 || string(p[:8]) != "OpusHead" {
		return fmt.Errorf("%w: the stream's first packet is not an OpusHead header%s", ErrNotOpus, sniffCodec(p))
	}
	if len(p) < opusHeadLen {
		return fmt.Errorf("%w: the OpusHead header has %d bytes, fewer than %d", ErrMalformed, len(p), opusHeadLen)
	}
	if v := p[8]; v>>4 != 0 {
		return fmt.Errorf("%w: OpusHead version %d is not one this reader knows (0.x only)", ErrNotOpus, v)
	}
	ch := int(p[9])
	if ch == 0 {
		return fmt.Errorf("%w: the OpusHead header says 0 channels", ErrMalformed)
	}
	switch family := p[18]; family {
	case 0:
		if ch > 2 {
			return fmt.Errorf("%w: channel mapping family 0 allows 1 or 2 channels, the header says %d", ErrMalformed, ch)
		}
	default:
		// streams, coupled streams, then one mapping byte per channel.
		if len(p) < opusHeadLen+2+ch {
			return fmt.Errorf("%w: the OpusHead header's channel mapping table is cut short", ErrMalformed)
		}
		streams, coupled := int(p[19]), int(p[20])
		if streams == 0 || coupled > streams {
			return fmt.Errorf("%w: the OpusHead header has %d streams of which %d coupled", ErrMalformed, streams, coupled)
		}
	}
	info.Channels = ch
	info.PreSkip = int(binary.LittleEndian.Uint16(p[10:12]))
	info.InputSampleRate = int(binary.LittleEndian.Uint32(p[12:16]))
	return nil
}

// sniff names what the bytes look like when they are not OGG at all, so
// the error says "this is an MP3" rather than only "not OGG".
func sniff(b []byte) string {
	switch {
	case len(b) == 0:
		return " (it is empty)"
	case len(b) >= 3 && string(b[:3]) == "ID3", len(b) >= 2 && b[0] == 0xFF && b[1]&0xE0 == 0xE0:
		return "; it looks like MP3"
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WAVE":
		return "; it looks like WAV"
	case len(b) >= 4 && string(b[:4]) == "fLaC":
		return "; it looks like FLAC"
	case len(b) >= 8 && string(b[4:8]) == "ftyp":
		return "; it looks like MP4/M4A"
	case len(b) >= 4 && string(b[:4]) == "\x1a\x45\xdf\xa3":
		return "; it looks like WebM/Matroska"
	case b[0] == '{' || b[0] == '<':
		return "; it looks like text (JSON or HTML)"
	}
	return ""
}

// sniffCodec names the codec of an OGG stream that is not Opus.
func sniffCodec(p []byte) string {
	switch {
	case len(p) >= 7 && string(p[1:7]) == "vorbis":
		return " (it is OGG/Vorbis)"
	case len(p) >= 5 && string(p[1:5]) == "FLAC":
		return " (it is OGG/FLAC)"
	case len(p) >= 8 && string(p[:8]) == "Speex   ":
		return " (it is OGG/Speex)"
	}
	return ""
}

// crcTable is RFC 3533's CRC-32: polynomial 0x04c11db7, not reflected,
// initial value 0, no final xor. A constant table, computed once at
// compile time is not possible in Go; this one is immutable after init.
var crcTable = func() (t [256]uint32) {
	for i := range t {
		r := uint32(i) << 24
		for range 8 {
			if r&0x80000000 != 0 {
				r = r<<1 ^ 0x04c11db7
			} else {
				r <<= 1
			}
		}
		t[i] = r
	}
	return t
}()

// crc is the checksum of a page with its checksum field taken as zero.
func crc(page []byte) uint32 {
	var c uint32
	for i, b := range page {
		if i >= 22 && i < 26 {
			b = 0
		}
		c = c<<8 ^ crcTable[byte(c>>24)^b]
	}
	return c
}
