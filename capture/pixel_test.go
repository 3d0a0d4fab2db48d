//go:build linux

package capture

import (
	"image"
	"image/color"
	"testing"
)

// TestConvertFormats converts one 2x2 image laid out in each format a
// TrueColor X server may use: the colours must come out the same.
func TestConvertFormats(t *testing.T) {
	want := []color.RGBA{
		{0xff, 0x00, 0x00, 0xff}, {0x00, 0xff, 0x00, 0xff},
		{0x00, 0x00, 0xff, 0xff}, {0xff, 0xff, 0xff, 0xff},
	}
	rgb888 := pixelFormat{red: newChannel(0xff0000), green: newChannel(0xff00), blue: newChannel(0xff)}
	rgb565 := pixelFormat{red: newChannel(0xf800), green: newChannel(0x7e0), blue: newChannel(0x1f)}
	for _, tc := range []struct {
		name string
		f    pixelFormat
		data []byte // two rows of two pixels, padding included
	}{
		{"32 bpp LSB first (BGRX)", with(rgb888, 32, 32, false), []byte{
			0, 0, 0xff, 0, 0, 0xff, 0, 0,
			0xff, 0, 0, 0, 0xff, 0xff, 0xff, 0}},
		{"32 bpp MSB first (XRGB)", with(rgb888, 32, 32, true), []byte{
			0, 0xff, 0, 0, 0, 0, 0xff, 0,
			0, 0, 0, 0xff, 0, 0xff, 0xff, 0xff}},
		{"24 bpp packed, rows padded to 32 bits", with(rgb888, 24, 32, false), []byte{
			0, 0, 0xff, 0, 0xff, 0, 0, 0,
			0xff, 0, 0, 0xff, 0xff, 0xff, 0, 0}},
		{"16 bpp 565 LSB first", with(rgb565, 16, 32, false), []byte{
			0x00, 0xf8, 0xe0, 0x07,
			0x1f, 0x00, 0xff, 0xff}},
		{"16 bpp 565 MSB first", with(rgb565, 16, 32, true), []byte{
			0xf8, 0x00, 0x07, 0xe0,
			0x00, 0x1f, 0xff, 0xff}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The image sits at 10,10 like a grab of that screen area.
			r := image.Rect(10, 10, 12, 12)
			img := image.NewRGBA(r)
			if err := tc.f.convert(img, r, tc.data); err != nil {
				t.Fatal(err)
			}
			for i, c := range want {
				x, y := 10+i%2, 10+i/2
				if got := img.RGBAAt(x, y); got != c {
					t.Errorf("pixel %d,%d = %v, want %v", x, y, got, c)
				}
			}
			if err := tc.f.convert(img, r, tc.data[:len(tc.data)-1]); err == nil {
				t.Error("short data converted without an error")
			}
		})
	}
}

func with(f pixelFormat, bpp, pad int, msb bool) pixelFormat {
	f.bpp, f.pad, f.msb = bpp, pad, msb
	return f
}
