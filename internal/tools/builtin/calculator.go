package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/tools"
)

//go:embed calculator.md
var calculatorDoc string

type calculatorArgs struct {
	Expression string `json:"expression"`
}

func newCalculator() *tool {
	return &tool{
		info: tools.Info{
			Name:        nameCalculator,
			Title:       "Calculator",
			Description: fmt.Sprintf(calculatorDoc, calcMaxLen, calcMaxDepth),
			InputSchema: schema(`{"type":"object","properties":{` +
				`"expression":{"type":"string","minLength":1,"description":"Arithmetic expression, e.g. (3.5 + 2) * 4^2 / 7 or sqrt(2) * pi."}` +
				`},"required":["expression"],"additionalProperties":false}`),
			Annotations: readOnly("Calculator"),
		},
		run: func(ctx context.Context, raw json.RawMessage) (*tools.Result, error) {
			var a calculatorArgs
			if err := decodeArgs(nameCalculator, raw, &a); err != nil {
				return errResult(err), nil
			}
			v, err := evaluate(a.Expression)
			if err != nil {
				return errResult(err), nil
			}
			return tools.TextResult(formatNumber(v)), nil
		},
	}
}

// evaluate parses and computes expr. It never panics, and its recursion is
// bounded by calcMaxDepth.
func evaluate(expr string) (float64, error) {
	if strings.TrimSpace(expr) == "" {
		return 0, errors.New("expression is empty; give an arithmetic expression such as 2 * (3 + 4)")
	}
	if len(expr) > calcMaxLen {
		return 0, fmt.Errorf("expression is %d characters long, more than the %d allowed", len(expr), calcMaxLen)
	}
	toks, err := lex(expr)
	if err != nil {
		return 0, err
	}
	p := &parser{toks: toks}
	v, err := p.expr(0)
	if err != nil {
		return 0, err
	}
	if t := p.peek(); t.kind != tokEOF {
		return 0, p.unexpected(t)
	}
	return v, nil
}

// parser is a precedence-climbing (Pratt) evaluator over tokens.
type parser struct {
	toks  []token
	i     int
	depth int
}

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tokEOF {
		p.i++
	}
	return t
}

func (p *parser) unexpected(t token) error {
	if t.kind == tokEOF {
		return fmt.Errorf("unexpected end of expression at position %d; an operand or ')' is missing", t.pos)
	}
	if t.kind == tokNum || t.kind == tokIdent || t.text == "(" {
		return fmt.Errorf("unexpected %q at position %d; an operator is missing (write 2*x, not 2x)", t.text, t.pos)
	}
	return fmt.Errorf("unexpected %q at position %d", t.text, t.pos)
}

// Binding powers. Unary minus binds looser than ^ so that -2^2 is -4.
const (
	precAdd   = 1
	precMul   = 2
	precUnary = 3
	precPow   = 4
)

func binaryPrec(t token) int {
	if t.kind != tokOp {
		return 0
	}
	switch t.text {
	case "+", "-":
		return precAdd
	case "*", "/", "%":
		return precMul
	case "^":
		return precPow
	}
	return 0
}

// expr parses operators that bind at least as tightly as minPrec.
func (p *parser) expr(minPrec int) (float64, error) {
	if p.depth++; p.depth > calcMaxDepth {
		return 0, fmt.Errorf("expression is nested more than %d levels deep", calcMaxDepth)
	}
	defer func() { p.depth-- }()
	left, err := p.unary()
	if err != nil {
		return 0, err
	}
	for {
		op := p.peek()
		prec := binaryPrec(op)
		if prec == 0 || prec < minPrec {
			return left, nil
		}
		p.next()
		next := prec + 1
		if op.text == "^" {
			next = prec // right-associative
		}
		right, err := p.expr(next)
		if err != nil {
			return 0, err
		}
		if left, err = apply(op, left, right); err != nil {
			return 0, err
		}
	}
}

func (p *parser) unary() (float64, error) {
	t := p.peek()
	if t.kind == tokOp && (t.text == "-" || t.text == "+") {
		p.next()
		v, err := p.expr(precPow)
		if err != nil {
			return 0, err
		}
		if t.text == "-" {
			v = -v
		}
		return v, nil
	}
	return p.primary()
}

func (p *parser) primary() (float64, error) {
	t := p.next()
	switch {
	case t.kind == tokNum:
		return t.num, nil
	case t.kind == tokOp && t.text == "(":
		v, err := p.expr(0)
		if err != nil {
			return 0, err
		}
		if c := p.next(); c.text != ")" || c.kind != tokOp {
			return 0, fmt.Errorf("missing ')' for the '(' at position %d", t.pos)
		}
		return v, nil
	case t.kind == tokIdent:
		if v, ok := calcConsts[t.text]; ok {
			return v, nil
		}
		fn, ok := calcFuncs[t.text]
		if !ok {
			return 0, fmt.Errorf("unknown name %q at position %d; known constants: %s; functions: %s", t.text, t.pos,
				strings.Join(slices.Sorted(maps.Keys(calcConsts)), ", "), strings.Join(slices.Sorted(maps.Keys(calcFuncs)), ", "))
		}
		args, err := p.args(t)
		if err != nil {
			return 0, err
		}
		switch {
		case fn.args == -1 && len(args) == 0:
			return 0, fmt.Errorf("%s needs at least one argument", t.text)
		case fn.args >= 0 && len(args) != fn.args:
			return 0, fmt.Errorf("%s takes %d argument(s), got %d", t.text, fn.args, len(args))
		}
		v, err := fn.f(args)
		if err != nil {
			return 0, err
		}
		return checked(v, t.text)
	}
	return 0, p.unexpected(t)
}

// args parses a parenthesised, comma-separated argument list after fn.
func (p *parser) args(fn token) ([]float64, error) {
	if o := p.next(); o.kind != tokOp || o.text != "(" {
		return nil, fmt.Errorf("function %s at position %d needs its arguments in parentheses, e.g. %s(2)", fn.text, fn.pos, fn.text)
	}
	var args []float64
	if c := p.peek(); c.kind == tokOp && c.text == ")" {
		p.next()
		return args, nil
	}
	for {
		v, err := p.expr(0)
		if err != nil {
			return nil, err
		}
		args = append(args, v)
		switch c := p.next(); {
		case c.kind == tokOp && c.text == ",":
		case c.kind == tokOp && c.text == ")":
			return args, nil
		default:
			return nil, fmt.Errorf("missing ')' or ',' in the arguments of %s at position %d", fn.text, c.pos)
		}
	}
}

func apply(op token, x, y float64) (float64, error) {
	var v float64
	switch op.text {
	case "+":
		v = x + y
	case "-":
		v = x - y
	case "*":
		v = x * y
	case "/":
		if y == 0 {
			return 0, fmt.Errorf("division by zero at position %d", op.pos)
		}
		v = x / y
	case "%":
		if y == 0 {
			return 0, fmt.Errorf("remainder by zero at position %d", op.pos)
		}
		v = math.Mod(x, y)
	case "^":
		var err error
		if v, err = power(x, y); err != nil {
			return 0, err
		}
	}
	return checked(v, op.text)
}

// checked refuses results that are not finite real numbers.
func checked(v float64, what string) (float64, error) {
	switch {
	case math.IsInf(v, 0):
		return 0, fmt.Errorf("result of %s is too large (beyond about 1.8e308)", what)
	case math.IsNaN(v):
		return 0, fmt.Errorf("result of %s is not a real number", what)
	}
	return v, nil
}

// formatNumber prints v without float noise: whole numbers as integers,
// others with 15 significant digits.
func formatNumber(v float64) string {
	if v == 0 {
		return "0" // also -0
	}
	if v == math.Trunc(v) && math.Abs(v) < 1e21 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', 15, 64)
}
