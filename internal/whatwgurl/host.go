package whatwgurl

import (
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/net/idna"
)

// Host parsing (https://url.spec.whatwg.org/#host-parsing): domains through
// IDNA, IPv4 and IPv6 addresses, opaque hosts.

var idnaProfile = idna.New(idna.MapForLookup(), idna.Transitional(false), idna.CheckHyphens(false),
	idna.CheckJoiners(true), idna.BidiRule(), idna.VerifyDNSLength(false), idna.StrictDomainName(false))

func forbiddenHost(c rune) bool {
	switch c {
	case 0, '\t', '\n', '\r', ' ', '#', '/', ':', '<', '>', '?', '@', '[', '\\', ']', '^', '|':
		return true
	}
	return false
}

func forbiddenDomain(c rune) bool {
	return forbiddenHost(c) || (c >= 0 && c <= 0x1f) || c == '%' || c == 0x7f
}

func ParseHost(input string, opaque bool) (string, error) {
	if strings.HasPrefix(input, "[") {
		if !strings.HasSuffix(input, "]") {
			return "", ErrInvalid
		}
		a, err := parseIPv6(input[1 : len(input)-1])
		if err != nil {
			return "", err
		}
		return "[" + serializeIPv6(a) + "]", nil
	}
	if opaque {
		for _, c := range input {
			if forbiddenHost(c) {
				return "", ErrInvalid
			}
		}
		return percentEncodeString(input, inC0), nil
	}
	domain := utf8DecodeWithoutBOM(percentDecode(input))
	ascii, err := domainToASCII(domain)
	if err != nil {
		return "", err
	}
	for _, c := range ascii {
		if forbiddenDomain(c) {
			return "", ErrInvalid
		}
	}
	if endsInNumber(ascii) {
		v4, err := parseIPv4(ascii)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%d.%d.%d.%d", v4>>24, (v4>>16)&255, (v4>>8)&255, v4&255), nil
	}
	return ascii, nil
}

func domainToASCII(domain string) (string, error) {
	simple := true
	for i := 0; i < len(domain); i++ {
		c := domain[i]
		if c >= 0x80 {
			simple = false
			break
		}
	}
	if simple {
		lower := strings.ToLower(domain)
		if !strings.HasPrefix(lower, "xn--") && !strings.Contains(lower, ".xn--") {
			if lower == "" {
				return "", ErrInvalid
			}
			return lower, nil
		}
	}
	out, err := idnaProfile.ToASCII(domain)
	if err != nil || out == "" {
		return "", ErrInvalid
	}
	return out, nil
}

func endsInNumber(s string) bool {
	parts := strings.Split(s, ".")
	if parts[len(parts)-1] == "" {
		if len(parts) == 1 {
			return false
		}
		parts = parts[:len(parts)-1]
	}
	last := parts[len(parts)-1]
	if last != "" {
		all := true
		for _, c := range last {
			if !isASCIIDigit(c) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	_, err := parseIPv4Number(last)
	return err == nil
}

func parseIPv4Number(s string) (uint64, error) {
	if s == "" {
		return 0, ErrInvalid
	}
	radix := 10
	if len(s) >= 2 && (s[:2] == "0x" || s[:2] == "0X") {
		s = s[2:]
		radix = 16
	} else if len(s) >= 2 && s[0] == '0' {
		s = s[1:]
		radix = 8
	}
	if s == "" {
		return 0, nil
	}
	var n uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		var d uint64
		switch {
		case c >= '0' && c <= '9':
			d = uint64(c - '0')
		case radix == 16 && c >= 'a' && c <= 'f':
			d = uint64(c-'a') + 10
		case radix == 16 && c >= 'A' && c <= 'F':
			d = uint64(c-'A') + 10
		default:
			return 0, ErrInvalid
		}
		if d >= uint64(radix) {
			return 0, ErrInvalid
		}
		n = n*uint64(radix) + d
		if n > 1<<40 {
			n = 1 << 40 // saturate: anything this large is out of range
		}
	}
	return n, nil
}

func parseIPv4(s string) (uint32, error) {
	parts := strings.Split(s, ".")
	if parts[len(parts)-1] == "" && len(parts) > 1 {
		parts = parts[:len(parts)-1]
	}
	if len(parts) > 4 {
		return 0, ErrInvalid
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		n, err := parseIPv4Number(p)
		if err != nil {
			return 0, err
		}
		nums[i] = n
	}
	for i, n := range nums {
		if n > 255 && i != len(nums)-1 {
			return 0, ErrInvalid
		}
	}
	last := nums[len(nums)-1]
	limit := uint64(1) << (8 * uint(5-len(nums)))
	if last >= limit {
		return 0, ErrInvalid
	}
	ipv4 := last
	for i := 0; i < len(nums)-1; i++ {
		ipv4 += nums[i] << (8 * uint(3-i))
	}
	return uint32(ipv4), nil
}

func parseIPv6(s string) ([8]uint16, error) {
	var a [8]uint16
	cs := []rune(s)
	pieceIndex, compress := 0, -1
	p := 0
	at := func(i int) rune {
		if i < len(cs) {
			return cs[i]
		}
		return -1
	}
	if at(p) == ':' {
		if at(p+1) != ':' {
			return a, ErrInvalid
		}
		p += 2
		pieceIndex++
		compress = pieceIndex
	}
	for at(p) != -1 {
		if pieceIndex == 8 {
			return a, ErrInvalid
		}
		if at(p) == ':' {
			if compress != -1 {
				return a, ErrInvalid
			}
			p++
			pieceIndex++
			compress = pieceIndex
			continue
		}
		value, length := 0, 0
		for length < 4 && at(p) != -1 && at(p) < 0x80 && isHex(byte(at(p))) {
			value = value*16 + int(unhex(byte(at(p))))
			p++
			length++
		}
		if at(p) == '.' {
			if length == 0 {
				return a, ErrInvalid
			}
			p -= length
			if pieceIndex > 6 {
				return a, ErrInvalid
			}
			numbersSeen := 0
			for at(p) != -1 {
				ipv4Piece := -1
				if numbersSeen > 0 {
					if at(p) == '.' && numbersSeen < 4 {
						p++
					} else {
						return a, ErrInvalid
					}
				}
				if at(p) == -1 || !isASCIIDigit(at(p)) {
					return a, ErrInvalid
				}
				for at(p) != -1 && isASCIIDigit(at(p)) {
					n := int(at(p) - '0')
					if ipv4Piece == -1 {
						ipv4Piece = n
					} else if ipv4Piece == 0 {
						return a, ErrInvalid
					} else {
						ipv4Piece = ipv4Piece*10 + n
					}
					if ipv4Piece > 255 {
						return a, ErrInvalid
					}
					p++
				}
				a[pieceIndex] = a[pieceIndex]*0x100 + uint16(ipv4Piece)
				numbersSeen++
				if numbersSeen == 2 || numbersSeen == 4 {
					pieceIndex++
				}
			}
			if numbersSeen != 4 {
				return a, ErrInvalid
			}
			break
		} else if at(p) == ':' {
			p++
			if at(p) == -1 {
				return a, ErrInvalid
			}
		} else if at(p) != -1 {
			return a, ErrInvalid
		}
		a[pieceIndex] = uint16(value)
		pieceIndex++
	}
	if compress != -1 {
		swaps := pieceIndex - compress
		pieceIndex = 7
		for pieceIndex != 0 && swaps > 0 {
			a[pieceIndex], a[compress+swaps-1] = a[compress+swaps-1], a[pieceIndex]
			pieceIndex--
			swaps--
		}
	} else if pieceIndex != 8 {
		return a, ErrInvalid
	}
	return a, nil
}

func serializeIPv6(a [8]uint16) string {
	// find the first longest run of 2+ zero pieces
	best, bestLen := -1, 1
	for i := 0; i < 8; {
		if a[i] != 0 {
			i++
			continue
		}
		j := i
		for j < 8 && a[j] == 0 {
			j++
		}
		if j-i > bestLen {
			best, bestLen = i, j-i
		}
		i = j
	}
	var b strings.Builder
	ignore0 := false
	for i := 0; i < 8; i++ {
		if ignore0 && a[i] == 0 {
			continue
		}
		ignore0 = false
		if best == i {
			if i == 0 {
				b.WriteString("::")
			} else {
				b.WriteString(":")
			}
			ignore0 = true
			continue
		}
		b.WriteString(strconv.FormatUint(uint64(a[i]), 16))
		if i != 7 {
			b.WriteByte(':')
		}
	}
	return b.String()
}
