// Padding that no benchmark runs: functions that sort before SumSquares,
// so that the linker places them before it and moves its code.
package sumsq

//go:noinline
func pad0(x int) int { return x*3 ^ x>>1 }

//go:noinline
func pad1(x int) int { return x*5 ^ x>>2 }

//go:noinline
func pad2(x int) int { return x*7 ^ x>>3 }

//go:noinline
func pad3(x int) int { return x*9 ^ x>>4 }

//go:noinline
func pad4(x int) int { return x*11 ^ x>>5 }

//go:noinline
func pad5(x int) int { return x*13 ^ x>>6 }

//go:noinline
func pad6(x int) int { return x*15 ^ x>>7 }

//go:noinline
func pad7(x int) int { return x*17 ^ x>>1 }

//go:noinline
func pad8(x int) int { return x*19 ^ x>>2 }

//go:noinline
func pad9(x int) int { return x*21 ^ x>>3 }

//go:noinline
func pad10(x int) int { return x*23 ^ x>>4 }

//go:noinline
func pad11(x int) int { return x*25 ^ x>>5 }

//go:noinline
func pad12(x int) int { return x*27 ^ x>>6 }

//go:noinline
func pad13(x int) int { return x*29 ^ x>>7 }

//go:noinline
func pad14(x int) int { return x*31 ^ x>>1 }

//go:noinline
func pad15(x int) int { return x*33 ^ x>>2 }

//go:noinline
func pad16(x int) int { return x*35 ^ x>>3 }

//go:noinline
func pad17(x int) int { return x*37 ^ x>>4 }

//go:noinline
func pad18(x int) int { return x*39 ^ x>>5 }

//go:noinline
func pad19(x int) int { return x*41 ^ x>>6 }

//go:noinline
func pad20(x int) int { return x*43 ^ x>>7 }

//go:noinline
func pad21(x int) int { return x*45 ^ x>>1 }

//go:noinline
func pad22(x int) int { return x*47 ^ x>>2 }

//go:noinline
func pad23(x int) int { return x*49 ^ x>>3 }

//go:noinline
func pad24(x int) int { return x*51 ^ x>>4 }

//go:noinline
func pad25(x int) int { return x*53 ^ x>>5 }

//go:noinline
func pad26(x int) int { return x*55 ^ x>>6 }

//go:noinline
func pad27(x int) int { return x*57 ^ x>>7 }

//go:noinline
func pad28(x int) int { return x*59 ^ x>>1 }

//go:noinline
func pad29(x int) int { return x*61 ^ x>>2 }

//go:noinline
func pad30(x int) int { return x*63 ^ x>>3 }

//go:noinline
func pad31(x int) int { return x*65 ^ x>>4 }

//go:noinline
func pad32(x int) int { return x*67 ^ x>>5 }

//go:noinline
func pad33(x int) int { return x*69 ^ x>>6 }

//go:noinline
func pad34(x int) int { return x*71 ^ x>>7 }

//go:noinline
func pad35(x int) int { return x*73 ^ x>>1 }

//go:noinline
func pad36(x int) int { return x*75 ^ x>>2 }

//go:noinline
func pad37(x int) int { return x*77 ^ x>>3 }

//go:noinline
func pad38(x int) int { return x*79 ^ x>>4 }

//go:noinline
func pad39(x int) int { return x*81 ^ x>>5 }

//go:noinline
func pad40(x int) int { return x*83 ^ x>>6 }

//go:noinline
func pad41(x int) int { return x*85 ^ x>>7 }

//go:noinline
func pad42(x int) int { return x*87 ^ x>>1 }

//go:noinline
func pad43(x int) int { return x*89 ^ x>>2 }

//go:noinline
func pad44(x int) int { return x*91 ^ x>>3 }

//go:noinline
func pad45(x int) int { return x*93 ^ x>>4 }

//go:noinline
func pad46(x int) int { return x*95 ^ x>>5 }

//go:noinline
func pad47(x int) int { return x*97 ^ x>>6 }

// Pad runs every padding function once.
func Pad(x int) int {
	x = pad0(x)
	x = pad1(x)
	x = pad2(x)
	x = pad3(x)
	x = pad4(x)
	x = pad5(x)
	x = pad6(x)
	x = pad7(x)
	x = pad8(x)
	x = pad9(x)
	x = pad10(x)
	x = pad11(x)
	x = pad12(x)
	x = pad13(x)
	x = pad14(x)
	x = pad15(x)
	x = pad16(x)
	x = pad17(x)
	x = pad18(x)
	x = pad19(x)
	x = pad20(x)
	x = pad21(x)
	x = pad22(x)
	x = pad23(x)
	x = pad24(x)
	x = pad25(x)
	x = pad26(x)
	x = pad27(x)
	x = pad28(x)
	x = pad29(x)
	x = pad30(x)
	x = pad31(x)
	x = pad32(x)
	x = pad33(x)
	x = pad34(x)
	x = pad35(x)
	x = pad36(x)
	x = pad37(x)
	x = pad38(x)
	x = pad39(x)
	x = pad40(x)
	x = pad41(x)
	x = pad42(x)
	x = pad43(x)
	x = pad44(x)
	x = pad45(x)
	x = pad46(x)
	x = pad47(x)
	return x
}
