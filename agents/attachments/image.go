package attachments

import (
	"bytes"
	"fmt"
	"image"
	"image/jpeg"

	// The formats a photo or an image document arrives in that the
	// standard library decodes; WebP and HEIC are refused by name.
	_ "image/gif"
	_ "image/png"

	"github.com/jarvisbot/jarvisbot"
)

// MaxSide is the longest side of an image sent to a model: Anthropic
// scales anything larger down itself (and bills it first), OpenAI's high
// detail tiles work in the same range, so larger only costs bytes.
const MaxSide = 1568

// maxPixels bounds what is decoded: a small PNG can announce a huge
// canvas, and decoding allocates its pixels before anything else. A JPEG
// takes 1.5 bytes a pixel (a 48-megapixel phone photo is ~75 MB); other
// images four, and eight more when laid on white, so they get half.
const (
	maxPixels      = 50_000_000
	maxOtherPixels = 25_000_000
)

// jpegQuality keeps text in a photographed page readable at a fraction of
// the original's bytes.
const jpegQuality = 85

// Image is an image made ready for a model.
type Image struct {
	JPEG []byte
	// Width and Height are the original's; Format its type ("jpeg",
	// "png", "gif"), for the note the history keeps.
	Width, Height int
	Format        string
}

// PrepareImage decodes an image (JPEG, PNG or GIF), scales it down so its
// longest side is at most maxSide, and encodes it as JPEG, which drops
// whatever metadata (a photo's location) the original carried.
func PrepareImage(data []byte, maxSide int) (Image, error) {
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return Image{}, jarvisbot.Errorf(jarvisbot.EINVALID, "the image cannot be read (%v): I take JPEG, PNG and GIF", err)
	}
	limit := int64(maxPixels)
	if format != "jpeg" {
		limit = maxOtherPixels
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || int64(cfg.Width)*int64(cfg.Height) > limit {
		return Image{}, jarvisbot.Errorf(jarvisbot.EINVALID, "the image is %d×%d pixels; I take up to %d megapixels", cfg.Width, cfg.Height, limit/1_000_000)
	}
	src, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return Image{}, jarvisbot.Errorf(jarvisbot.EINVALID, "the %s image cannot be read: %v", format, err)
	}
	out := Image{Width: cfg.Width, Height: cfg.Height, Format: format}
	dst := Downscale(src, maxSide)
	if _, ycc := dst.(*image.YCbCr); !ycc {
		if _, rgba := dst.(*image.RGBA); !rgba {
			dst = onWhite(dst) // a small PNG with transparency, not scaled
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, dst, &jpeg.Options{Quality: jpegQuality}); err != nil {
		return Image{}, fmt.Errorf("encoding the image as JPEG: %w", err)
	}
	out.JPEG = buf.Bytes()
	return out, nil
}

// Downscale returns src with its longest side at most maxSide, each pixel
// the average of the source pixels it covers (a box filter: every source
// pixel is read once, and a downscale by any factor keeps fine detail as
// a blend rather than as aliasing). A smaller image is returned as it is.
// A JPEG's YCbCr planes are scaled as they are, without a conversion to
// RGB (the average commutes with it), which halves the time of a photo.
func Downscale(src image.Image, maxSide int) image.Image {
	b := src.Bounds()
	sw, sh := b.Dx(), b.Dy()
	if max(sw, sh) <= maxSide {
		return src
	}
	dw, dh := maxSide, max(1, sh*maxSide/sw)
	if sh > sw {
		dw, dh = max(1, sw*maxSide/sh), maxSide
	}
	if y, ok := src.(*image.YCbCr); ok {
		dst := image.NewYCbCr(image.Rect(0, 0, dw, dh), image.YCbCrSubsampleRatio444)
		yi := y.YOffset(b.Min.X, b.Min.Y)
		boxPlane(plane{y.Y[yi:], y.YStride, 1, sw, sh}, plane{dst.Y, dst.YStride, 1, dw, dh})
		// The chroma planes are smaller than the luma one by the ratio.
		c := y.COffset(b.Min.X, b.Min.Y)
		cw, ch := chromaSize(y.SubsampleRatio, sw, sh)
		boxPlane(plane{y.Cb[c:], y.CStride, 1, cw, ch}, plane{dst.Cb, dst.CStride, 1, dw, dh})
		boxPlane(plane{y.Cr[c:], y.CStride, 1, cw, ch}, plane{dst.Cr, dst.CStride, 1, dw, dh})
		return dst
	}
	rgba, ok := src.(*image.RGBA)
	if !ok {
		rgba = onWhite(src)
	} else if b.Min != (image.Point{}) {
		rgba = rgba.SubImage(b).(*image.RGBA)
	}
	dst := image.NewRGBA(image.Rect(0, 0, dw, dh))
	for c := range 4 {
		boxPlane(plane{rgba.Pix[c:], rgba.Stride, 4, sw, sh}, plane{dst.Pix[c:], dst.Stride, 4, dw, dh})
	}
	return dst
}

// onWhite converts an image (a PNG with transparency, a GIF's palette) to
// opaque RGBA, laid on white: a JPEG has no transparency, and a logo or a
// screenshot on black would be unreadable. Pixel by pixel through At: the
// standard decoders give JPEGs as YCbCr and opaque PNGs as RGBA, which
// never come here, and image/draw's fast paths cost the binary more than
// the rarer formats are worth.
func onWhite(src image.Image) *image.RGBA {
	b := src.Bounds()
	dst := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	for y := b.Min.Y; y < b.Max.Y; y++ {
		row := dst.Pix[(y-b.Min.Y)*dst.Stride:]
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, a := src.At(x, y).RGBA() // premultiplied, 16 bits
			p := row[4*(x-b.Min.X) : 4*(x-b.Min.X)+4 : 4*(x-b.Min.X)+4]
			p[0] = uint8((r + 0xffff - a) >> 8)
			p[1] = uint8((g + 0xffff - a) >> 8)
			p[2] = uint8((bl + 0xffff - a) >> 8)
			p[3] = 0xff
		}
	}
	return dst
}

// chromaSize is the size of a YCbCr image's chroma planes.
func chromaSize(r image.YCbCrSubsampleRatio, w, h int) (int, int) {
	switch r {
	case image.YCbCrSubsampleRatio422:
		return (w + 1) / 2, h
	case image.YCbCrSubsampleRatio420:
		return (w + 1) / 2, (h + 1) / 2
	case image.YCbCrSubsampleRatio440:
		return w, (h + 1) / 2
	case image.YCbCrSubsampleRatio411:
		return (w + 3) / 4, h
	case image.YCbCrSubsampleRatio410:
		return (w + 3) / 4, (h + 1) / 2
	}
	return w, h
}

// plane is one channel of an image: w×h samples, step bytes apart in a
// row, rows stride bytes apart.
type plane struct {
	pix                []byte
	stride, step, w, h int
}

// boxPlane fills dst with the averages of the boxes of src it covers. A
// box is at least one sample wide and high, so a plane smaller than dst
// (a photo's chroma) is stretched by repeating samples.
func boxPlane(src, dst plane) {
	x0 := make([]int, dst.w+1)
	for i := range x0 {
		x0[i] = min(i*src.w/dst.w, src.w-1)
	}
	x0[dst.w] = src.w
	sums := make([]uint32, dst.w)
	for dy := range dst.h {
		y0 := min(dy*src.h/dst.h, src.h-1)
		y1 := max((dy+1)*src.h/dst.h, y0+1)
		clear(sums)
		for y := y0; y < y1; y++ {
			row := src.pix[y*src.stride:]
			for dx := range dst.w {
				var s uint32
				a, b := x0[dx], max(x0[dx+1], x0[dx]+1)
				for x := a; x < b; x++ {
					s += uint32(row[x*src.step])
				}
				sums[dx] += s
			}
		}
		out := dst.pix[dy*dst.stride:]
		for dx := range dst.w {
			n := uint32((max(x0[dx+1], x0[dx]+1) - x0[dx]) * (y1 - y0))
			out[dx*dst.step] = uint8((sums[dx] + n/2) / n)
		}
	}
}
