package builtin

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCalculator(t *testing.T) {
	tests := []struct {
		expr, want string
	}{
		{"1+2", "3"},
		{"2 + 3 * 4", "14"},
		{"(2 + 3) * 4", "20"},
		{"10 / 4", "2.5"},
		{"7 % 3", "1"},
		{"-7 % 3", "-1"},
		{"2^10", "1024"},
		{"2^3^2", "512"},
		{"-2^2", "-4"},
		{"(-2)^2", "4"},
		{"2^-1", "0.5"},
		{"2 * -3", "-6"},
		{"--3", "3"},
		{"+5", "5"},
		{"2**3", "8"},
		{"6 × 7 ÷ 2 − 1", "20"},
		{"0.1 + 0.2", "0.3"},
		{"1/3", "0.333333333333333"},
		{".5 + 1.", "1.5"},
		{"6.02e23", "6.02e+23"},
		{"1.5E-3 * 2", "0.003"},
		{"1e20", "100000000000000000000"},
		{"1e21", "1e+21"},
		{"2^53 + 1", "9007199254740992"},
		{"sqrt(16)", "4"},
		{"sqrt(2)", "1.4142135623731"},
		{"abs(-3.5)", "3.5"},
		{"sin(0) + cos(0)", "1"},
		{"sin(pi/2)", "1"},
		{"tan(0)", "0"},
		{"log(1000)", "3"},
		{"log10(0.01)", "-2"},
		{"log2(8)", "3"},
		{"ln(e)", "1"},
		{"exp(0)", "1"},
		{"floor(-2.5) + ceil(2.1)", "0"},
		{"round(2.5) + round(-2.5)", "0"},
		{"round(2.4)", "2"},
		{"trunc(-2.7)", "-2"},
		{"min(3, 1, 2)", "1"},
		{"max(3, 7, 5) % 4", "3"},
		{"max(4)", "4"},
		{"pow(2, 0.5) * pow(2, 0.5)", "2"},
		{"hypot(3, 4)", "5"},
		{"PI * 2 - TAU", "0"},
		{"Sqrt(9)", "3"},
		{"asin(1) * 2 - pi", "0"},
		{"  \t 42 \n", "42"},
		{"-0", "0"},
		{"(((((1)))))", "1"},
		{"1e-7", "1e-07"},
		{"(-8)^(1/3*3)", "-8"},
	}
	e := newEnv(t, nil)
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			if got := e.ok(t, nameCalculator, map[string]any{"expression": tt.expr}); got != tt.want {
				t.Errorf("%s = %s, want %s", tt.expr, got, tt.want)
			}
		})
	}
}

func TestCalculatorErrors(t *testing.T) {
	tests := []struct {
		expr, want string
	}{
		{"", "expression is empty"},
		{"1/0", "division by zero at position 2"},
		{"5 % 0", "remainder by zero at position 3"},
		{"1/(2-2)", "division by zero"},
		{"0^-1", "0 raised to a negative power (-1) is a division by zero"},
		{"(-8)^(1/3)", "a negative number (-8) raised to a non-integer power (0.333333333333333) is not a real number"},
		{"sqrt(-1)", "sqrt of a negative number (-1) is not a real number"},
		{"ln(0)", "ln of 0 is undefined; the argument must be positive"},
		{"log(-1)", "log of -1 is undefined"},
		{"acos(2)", "acos of 2 is undefined; the argument must be between -1 and 1"},
		{"10^400", "result of ^ is too large (beyond about 1.8e308)"},
		{"1e308 * 10", "result of * is too large"},
		{"exp(1000)", "result of exp is too large"},
		{"1e999", "number 1e999 at position 1 is too large (the limit is about 1.8e308)"},
		{"1.2.3", `malformed number "1.2.3" at position 1`},
		{".", `malformed number "." at position 1`},
		{"2 +", "unexpected end of expression at position 4; an operand or ')' is missing"},
		{"(1 + 2", "missing ')' for the '(' at position 1"},
		{"1 + 2)", `unexpected ")" at position 6`},
		{"2pi", `unexpected "pi" at position 2; an operator is missing (write 2*x, not 2x)`},
		{"2 (3)", `unexpected "(" at position 3; an operator is missing`},
		{"1 2", `unexpected "2" at position 3; an operator is missing`},
		{"x + 1", `unknown name "x" at position 1; known constants: e, pi, tau; functions: abs, acos,`},
		{"foo(1)", `unknown name "foo"`},
		{"sqrt 4", "function sqrt at position 1 needs its arguments in parentheses, e.g. sqrt(2)"},
		{"sqrt(1, 2)", "sqrt takes 1 argument(s), got 2"},
		{"pow(2)", "pow takes 2 argument(s), got 1"},
		{"max()", "max needs at least one argument"},
		{"min(1 2)", "missing ')' or ',' in the arguments of min at position 7"},
		{"1,000", `unexpected "," at position 2`},
		{"2 $ 3", "unexpected character '$' at position 3"},
		{"1 + \xff", "unexpected character"}, // JSON turns the byte into U+FFFD
		{"pi()", `unexpected "(" at position 3`},
		{"*3", `unexpected "*" at position 1`},
		{strings.Repeat("(", 300) + "1" + strings.Repeat(")", 300), "nested more than 200 levels deep"},
		{strings.Repeat("-", 300) + "1", "nested more than 200 levels deep"},
		{strings.Repeat("1+", 6000) + "1", "more than the 10000 allowed"},
	}
	e := newEnv(t, nil)
	for _, tt := range tests {
		name := tt.expr
		if len(name) > 20 {
			name = name[:20]
		}
		t.Run(name, func(t *testing.T) {
			e.fail(t, nameCalculator, map[string]any{"expression": tt.expr}, tt.want)
		})
	}
}

// FuzzCalculator checks that no input panics, hangs or yields a non-finite
// number, and that formatted results parse back to the same value.
func FuzzCalculator(f *testing.F) {
	for _, s := range []string{
		"1+2*3", "-2^2", "2^3^2", "sqrt(2)", "max(1,2,3)", "1/0", "(((1)))", "1e308*10", "2pi",
		"pow(2, 0.5)", "round(-2.5)", "6 × 7", "1,2", ")(", "--------1", "e^pi", "1e-400", "ln(0)",
		"min(", "sqrt()", "..1", "1ee5", "9" + strings.Repeat("9", 400), "0.1+0.2",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		v, err := evaluate(expr)
		if err != nil {
			if msg := err.Error(); msg == "" || !utf8.ValidString(msg) && utf8.ValidString(expr) {
				t.Fatalf("bad error message %q for %q", msg, expr)
			}
			return
		}
		out := formatNumber(v)
		back, err := evaluate(out)
		if err != nil {
			t.Fatalf("%q = %s, which does not parse back: %v", expr, out, err)
		}
		if formatNumber(back) != out {
			t.Fatalf("%q = %s, which parses back as %s", expr, out, formatNumber(back))
		}
	})
}
