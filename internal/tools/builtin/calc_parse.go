package builtin

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

const (
	calcMaxLen   = 10000
	calcMaxDepth = 200
)

// calcFuncs are the functions calculator knows, with their argument counts
// (-1: one or more).
var calcFuncs = map[string]struct {
	args int
	f    func([]float64) (float64, error)
}{
	"sqrt": {1, func(a []float64) (float64, error) {
		if a[0] < 0 {
			return 0, fmt.Errorf("sqrt of a negative number (%s) is not a real number", formatNumber(a[0]))
		}
		return math.Sqrt(a[0]), nil
	}},
	"abs":   {1, unary(math.Abs)},
	"sin":   {1, unary(math.Sin)},
	"cos":   {1, unary(math.Cos)},
	"tan":   {1, unary(math.Tan)},
	"asin":  {1, domain("asin", math.Asin, -1, 1)},
	"acos":  {1, domain("acos", math.Acos, -1, 1)},
	"atan":  {1, unary(math.Atan)},
	"log":   {1, logf("log", math.Log10)},
	"log10": {1, logf("log10", math.Log10)},
	"log2":  {1, logf("log2", math.Log2)},
	"ln":    {1, logf("ln", math.Log)},
	"exp":   {1, unary(math.Exp)},
	"floor": {1, unary(math.Floor)},
	"ceil":  {1, unary(math.Ceil)},
	"round": {1, unary(math.Round)},
	"trunc": {1, unary(math.Trunc)},
	"min":   {-1, func(a []float64) (float64, error) { return slices.Min(a), nil }},
	"max":   {-1, func(a []float64) (float64, error) { return slices.Max(a), nil }},
	"pow":   {2, func(a []float64) (float64, error) { return power(a[0], a[1]) }},
	"hypot": {2, func(a []float64) (float64, error) { return math.Hypot(a[0], a[1]), nil }},
}

var calcConsts = map[string]float64{"pi": math.Pi, "e": math.E, "tau": 2 * math.Pi}

func unary(f func(float64) float64) func([]float64) (float64, error) {
	return func(a []float64) (float64, error) { return f(a[0]), nil }
}

func logf(name string, f func(float64) float64) func([]float64) (float64, error) {
	return func(a []float64) (float64, error) {
		if a[0] <= 0 {
			return 0, fmt.Errorf("%s of %s is undefined; the argument must be positive", name, formatNumber(a[0]))
		}
		return f(a[0]), nil
	}
}

func domain(name string, f func(float64) float64, lo, hi float64) func([]float64) (float64, error) {
	return func(a []float64) (float64, error) {
		if a[0] < lo || a[0] > hi {
			return 0, fmt.Errorf("%s of %s is undefined; the argument must be between %g and %g", name, formatNumber(a[0]), lo, hi)
		}
		return f(a[0]), nil
	}
}

func power(x, y float64) (float64, error) {
	switch {
	case x == 0 && y < 0:
		return 0, fmt.Errorf("0 raised to a negative power (%s) is a division by zero", formatNumber(y))
	case x < 0 && y != math.Trunc(y):
		return 0, fmt.Errorf("a negative number (%s) raised to a non-integer power (%s) is not a real number", formatNumber(x), formatNumber(y))
	}
	return math.Pow(x, y), nil
}

// token kinds.
const (
	tokEOF = iota
	tokNum
	tokIdent
	tokOp // one of + - * / % ^ ( ) ,
)

type token struct {
	kind int
	pos  int // 1-based character position, for messages
	text string
	num  float64
}

// lex splits an expression into tokens. It accepts ** for ^ and the
// typographic × ÷ − for * / -.
func lex(s string) ([]token, error) {
	var toks []token
	pos := 0 // characters consumed, for messages
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		pos++
		switch {
		case unicode.IsSpace(r):
			i += size
		case r >= '0' && r <= '9' || r == '.':
			j := i
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.') {
				j++
			}
			if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
				k := j + 1
				if k < len(s) && (s[k] == '+' || s[k] == '-') {
					k++
				}
				if k < len(s) && s[k] >= '0' && s[k] <= '9' {
					for k < len(s) && s[k] >= '0' && s[k] <= '9' {
						k++
					}
					j = k
				}
			}
			text := s[i:j]
			v, err := strconv.ParseFloat(text, 64)
			if err != nil {
				if errors.Is(err, strconv.ErrRange) {
					return nil, fmt.Errorf("number %s at position %d is too large (the limit is about 1.8e308)", text, pos)
				}
				return nil, fmt.Errorf("malformed number %q at position %d", text, pos)
			}
			toks = append(toks, token{kind: tokNum, pos: pos, text: text, num: v})
			pos += utf8.RuneCountInString(text) - 1
			i = j
		case unicode.IsLetter(r) || r == '_':
			j := i
			for j < len(s) {
				r2, n := utf8.DecodeRuneInString(s[j:])
				if !unicode.IsLetter(r2) && !unicode.IsDigit(r2) && r2 != '_' {
					break
				}
				j += n
			}
			text := s[i:j]
			toks = append(toks, token{kind: tokIdent, pos: pos, text: strings.ToLower(text)})
			pos += utf8.RuneCountInString(text) - 1
			i = j
		case strings.HasPrefix(s[i:], "**"):
			toks = append(toks, token{kind: tokOp, pos: pos, text: "^"})
			pos++
			i += 2
		case strings.ContainsRune("+-*/%^(),", r):
			toks = append(toks, token{kind: tokOp, pos: pos, text: string(r)})
			i += size
		case r == '×' || r == '÷' || r == '−':
			toks = append(toks, token{kind: tokOp, pos: pos, text: map[rune]string{'×': "*", '÷': "/", '−': "-"}[r]})
			i += size
		default:
			if r == utf8.RuneError && size == 1 {
				return nil, fmt.Errorf("invalid UTF-8 at position %d", pos)
			}
			return nil, fmt.Errorf("unexpected character %q at position %d; use numbers, + - * / %% ^, parentheses and the listed functions", r, pos)
		}
	}
	return append(toks, token{kind: tokEOF, pos: pos + 1}), nil
}
