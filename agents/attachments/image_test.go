package attachments

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"
)

// photo is a w×h JPEG with a gradient, as a camera's photo stands in.
func photo(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewYCbCr(image.Rect(0, 0, w, h), image.YCbCrSubsampleRatio420)
	for y := range h {
		for x := range w {
			img.Y[img.YOffset(x, y)] = uint8((x + y) % 256)
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestPrepareImageScalesToTheLongestSideCH4: a large photo comes out as a
// JPEG whose longest side is the limit, its aspect kept; a small PNG keeps
// its size and becomes a JPEG; what is no image is refused in words.
func TestPrepareImageScalesToTheLongestSideCH4(t *testing.T) {
	for _, tc := range []struct {
		name         string
		data         []byte
		wantW, wantH int
		format       string
	}{
		{"landscape photo", photo(t, 4000, 3000), 1568, 1176, "jpeg"},
		{"portrait photo", photo(t, 1200, 2400), 784, 1568, "jpeg"},
		{"small png", pngOf(t, 300, 200), 300, 200, "png"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			img, err := PrepareImage(tc.data, MaxSide)
			if err != nil {
				t.Fatal(err)
			}
			got, format, err := image.DecodeConfig(bytes.NewReader(img.JPEG))
			if err != nil || format != "jpeg" {
				t.Fatalf("the result is %q (%v), want a JPEG", format, err)
			}
			if got.Width != tc.wantW || got.Height != tc.wantH || img.Format != tc.format {
				t.Errorf("%d×%d %s, want %d×%d from %s", got.Width, got.Height, img.Format, tc.wantW, tc.wantH, tc.format)
			}
		})
	}
	if _, err := PrepareImage([]byte("%PDF-1.4"), MaxSide); err == nil {
		t.Error("a PDF was taken for an image")
	}
}

func pngOf(t testing.TB, w, h int) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.NRGBA{uint8(x), uint8(y), 0, 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestDownscaleAveragesCH4: a 2×1 box of black and white becomes grey.
func TestDownscaleAveragesCH4(t *testing.T) {
	src := image.NewRGBA(image.Rect(0, 0, 4, 2))
	for y := range 2 {
		src.Set(0, y, color.White)
		src.Set(1, y, color.Black)
		src.Set(2, y, color.White)
		src.Set(3, y, color.White)
	}
	dst := Downscale(src, 2).(*image.RGBA)
	if r, _, _, _ := dst.At(0, 0).RGBA(); r>>8 != 128 {
		t.Errorf("the left pixel is %d, want the average 128", r>>8)
	}
	if r, _, _, _ := dst.At(1, 0).RGBA(); r>>8 != 255 {
		t.Errorf("the right pixel is %d, want 255", r>>8)
	}
}

func BenchmarkPrepareImage4000x3000(b *testing.B) {
	data := photo(b, 4000, 3000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := PrepareImage(data, MaxSide); err != nil {
			b.Fatal(err)
		}
	}
}

// TestDownscaleKeepsColourCH4: a JPEG's chroma, stored at a quarter of
// the luma's resolution, comes out where it was.
func TestDownscaleKeepsColourCH4(t *testing.T) {
	src := image.NewRGBA(image.Rect(0, 0, 2000, 1000))
	for y := range 1000 {
		for x := range 2000 {
			c := color.RGBA{200, 30, 30, 255}
			if x >= 1000 {
				c = color.RGBA{30, 30, 200, 255}
			}
			src.SetRGBA(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, src, &jpeg.Options{Quality: 95}); err != nil {
		t.Fatal(err)
	}
	img, err := PrepareImage(b.Bytes(), 500)
	if err != nil {
		t.Fatal(err)
	}
	out, err := jpeg.Decode(bytes.NewReader(img.JPEG))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []struct {
		x       int
		redWins bool
	}{{100, true}, {400, false}} {
		r, _, bl, _ := out.At(p.x, 125).RGBA()
		if (r > bl) != p.redWins {
			t.Errorf("pixel %d: red %d, blue %d; want the %s half's colour", p.x, r>>8, bl>>8, map[bool]string{true: "red", false: "blue"}[p.redWins])
		}
	}
}

// TestTransparentImageOnWhiteCH4: a PNG's transparent pixels come out
// white in the JPEG, not black: a logo or a screenshot stays readable.
func TestTransparentImageOnWhiteCH4(t *testing.T) {
	src := image.NewNRGBA(image.Rect(0, 0, 40, 20))
	for x := range 20 {
		for y := range 20 {
			src.SetNRGBA(x, y, color.NRGBA{0, 0, 0, 255}) // left half opaque black, right half transparent
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, src); err != nil {
		t.Fatal(err)
	}
	img, err := PrepareImage(b.Bytes(), MaxSide)
	if err != nil {
		t.Fatal(err)
	}
	out, err := jpeg.Decode(bytes.NewReader(img.JPEG))
	if err != nil {
		t.Fatal(err)
	}
	if r, _, _, _ := out.At(5, 10).RGBA(); r>>8 > 40 {
		t.Errorf("the opaque black half is %d", r>>8)
	}
	if r, _, _, _ := out.At(35, 10).RGBA(); r>>8 < 215 {
		t.Errorf("the transparent half is %d, want white", r>>8)
	}
}

// FuzzPrepareImage: no image, however damaged or oddly shaped, makes the
// scaler panic.
func FuzzPrepareImage(f *testing.F) {
	f.Add(photo(f, 33, 7), 16)
	f.Add(pngOf(f, 3, 50), 4)
	f.Fuzz(func(t *testing.T, data []byte, side int) {
		if side < 1 || side > 64 {
			return
		}
		PrepareImage(data, side)
	})
}

// TestHugeCanvasRefusedBeforeDecodingCH4: an image that announces more
// pixels than the bound is refused from its header, in words.
func TestHugeCanvasRefusedBeforeDecodingCH4(t *testing.T) {
	// A PNG header claiming 20000×20000: refused before any pixel is read.
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 1, 1))); err != nil {
		t.Fatal(err)
	}
	data := b.Bytes()
	// IHDR's width and height follow the 8-byte signature, length and
	// type; its CRC, over type and data, follows its 13 bytes.
	copy(data[16:24], []byte{0, 0, 0x4e, 0x20, 0, 0, 0x4e, 0x20})
	binary.BigEndian.PutUint32(data[29:33], crc32.ChecksumIEEE(data[12:29]))
	_, err := PrepareImage(data, MaxSide)
	if err == nil || !strings.Contains(err.Error(), "20000×20000 pixels; I take up to 25 megapixels") {
		t.Errorf("a 400-megapixel PNG: %v", err)
	}
}
