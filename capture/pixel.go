//go:build linux

package capture

import (
	"fmt"
	"image"
	"math/bits"

	"github.com/jezek/xgb/xproto"
)

// pixelFormat says how the server lays out ZPixmap image data for the
// root window: from the setup's pixmap format for the root depth, its image
// byte order, and the root visual's channel masks.
type pixelFormat struct {
	bpp              int  // bits per pixel: 16, 24 or 32
	pad              int  // scanline pad in bits: each row is a multiple of it
	msb              bool // MSBFirst: a pixel's bytes are most significant first
	red, green, blue channel
}

// channel is one colour's bits in a pixel.
type channel struct {
	mask  uint32
	shift uint   // position of the mask's lowest bit
	max   uint32 // the channel's largest value, mask >> shift
}

func newChannel(mask uint32) channel {
	shift := uint(bits.TrailingZeros32(mask))
	return channel{mask: mask, shift: shift, max: mask >> shift}
}

// value scales the channel's bits in p to 0..255.
func (c channel) value(p uint32) uint8 {
	v := (p & c.mask) >> c.shift
	if c.max == 0xff {
		return uint8(v)
	}
	return uint8(v * 255 / c.max)
}

// formatOf reads the root window's pixel format from the connection setup.
// Only TrueColor visuals are read: their pixels hold the colour itself. A
// PseudoColor (palette) screen would need its colormap; none of the servers
// canopy runs on (Xvfb, Xorg, Xwayland) use one by default.
func formatOf(setup *xproto.SetupInfo, screen *xproto.ScreenInfo) (pixelFormat, error) {
	f := pixelFormat{msb: setup.ImageByteOrder == xproto.ImageOrderMSBFirst}
	for _, pf := range setup.PixmapFormats {
		if pf.Depth == screen.RootDepth {
			f.bpp, f.pad = int(pf.BitsPerPixel), int(pf.ScanlinePad)
		}
	}
	if f.bpp != 16 && f.bpp != 24 && f.bpp != 32 {
		return f, fmt.Errorf("its screen has %d-bit pixels (depth %d); screenshots need 16, 24 or 32 bits per pixel", f.bpp, screen.RootDepth)
	}
	if f.pad < 8 || f.pad%8 != 0 {
		return f, fmt.Errorf("its screen pads image rows to %d bits, which screenshots cannot read", f.pad)
	}
	v, ok := rootVisual(screen)
	if !ok {
		return f, fmt.Errorf("its root visual %#x is not listed in the connection setup", screen.RootVisual)
	}
	if v.Class != xproto.VisualClassTrueColor {
		return f, fmt.Errorf("its screen uses visual class %d, not TrueColor; screenshots read TrueColor only", v.Class)
	}
	f.red, f.green, f.blue = newChannel(v.RedMask), newChannel(v.GreenMask), newChannel(v.BlueMask)
	for _, c := range []channel{f.red, f.green, f.blue} {
		if c.mask == 0 || bits.Len32(c.mask) > f.bpp {
			return f, fmt.Errorf("its visual's colour masks (%#x %#x %#x) do not fit %d-bit pixels", v.RedMask, v.GreenMask, v.BlueMask, f.bpp)
		}
	}
	return f, nil
}

// rootVisual finds the description of the screen's root visual.
func rootVisual(screen *xproto.ScreenInfo) (xproto.VisualInfo, bool) {
	for _, d := range screen.AllowedDepths {
		for _, v := range d.Visuals {
			if v.VisualId == screen.RootVisual {
				return v, true
			}
		}
	}
	return xproto.VisualInfo{}, false
}

// stride is the length in bytes of one row of w pixels, padding included.
func (f pixelFormat) stride(w int) int {
	rowBits := (w*f.bpp + f.pad - 1) / f.pad * f.pad
	return rowBits / 8
}

// bgrx reports the layout of Xvfb and most X servers on little-endian
// machines: 32-bit pixels whose bytes are blue, green, red, unused.
func (f pixelFormat) bgrx() bool {
	return f.bpp == 32 && !f.msb && f.red.mask == 0xff0000 && f.green.mask == 0xff00 && f.blue.mask == 0xff
}

// convert writes ZPixmap data for the rectangle r of dst (r inside
// dst.Bounds()) into dst as opaque RGBA.
func (f pixelFormat) convert(dst *image.RGBA, r image.Rectangle, data []byte) error {
	stride, w := f.stride(r.Dx()), r.Dx()
	if want := stride * r.Dy(); len(data) < want {
		return fmt.Errorf("the X server sent %d bytes of pixels for %dx%d, want %d", len(data), w, r.Dy(), want)
	}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		src := data[(y-r.Min.Y)*stride:]
		out := dst.Pix[dst.PixOffset(r.Min.X, y):][:4*w]
		if f.bgrx() {
			convertBGRX(out, src[:4*w])
		} else {
			f.convertRow(out, src)
		}
	}
	return nil
}

// convertBGRX is the fast path for bgrx rows.
func convertBGRX(out, src []byte) {
	for i := 0; i+3 < len(src); i += 4 {
		out[i], out[i+1], out[i+2], out[i+3] = src[i+2], src[i+1], src[i], 0xff
	}
}

// convertRow converts one row of any supported format, pixel by pixel.
func (f pixelFormat) convertRow(out, src []byte) {
	n := f.bpp / 8
	for i := 0; i < len(out)/4; i++ {
		p := f.pixel(src[i*n : i*n+n])
		o := out[4*i : 4*i+4]
		o[0], o[1], o[2], o[3] = f.red.value(p), f.green.value(p), f.blue.value(p), 0xff
	}
}

// pixel reads one pixel's bytes in the server's byte order.
func (f pixelFormat) pixel(b []byte) uint32 {
	var p uint32
	for i := range b {
		if f.msb {
			p = p<<8 | uint32(b[i])
		} else {
			p |= uint32(b[i]) << (8 * i)
		}
	}
	return p
}
