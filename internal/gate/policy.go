package gate

import (
	"path"

	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// Action is what the approval policy says about a call.
type Action string

const (
	ActionAllow Action = "allow"
	ActionAsk   Action = "ask"
	ActionDeny  Action = "deny"
)

// PolicyMode overrides the annotation defaults.
type PolicyMode string

const (
	// ModeDefault ("" too) decides by annotations.
	ModeDefault PolicyMode = "default"
	// ModeAllowAll allows every call no rule covers.
	ModeAllowAll PolicyMode = "allow-all"
	// ModeAskAll asks for every call no rule covers.
	ModeAskAll PolicyMode = "ask-all"
)

// BuiltinServer is the server name of built-in tools in rules and agent
// server lists.
const BuiltinServer = "builtin"

// Rule sets the action for tools whose server and tool name match the
// globs ([path.Match] syntax; "" matches everything). Tool is matched
// against both the catalogue name and the tool's own name.
type Rule struct {
	Server string
	Tool   string
	Action Action
}

// Policy decides which tool calls need approval. The zero value is the
// default policy: read-only tools are allowed; destructive tools, tools
// without annotations and other writing tools ask.
type Policy struct {
	Mode PolicyMode
	// ReadOnly, Destructive and Unannotated are the actions by annotation
	// in ModeDefault; "" means allow, ask and ask. Tools that declare
	// annotations and are neither read-only nor destructive (additive
	// writes) take the Destructive action: they change things too.
	ReadOnly    Action
	Destructive Action
	Unannotated Action
	// Rules are checked first, in order; the first match wins.
	Rules []Rule
}

// Decide returns the action for a call of e. A rule with an unknown or
// empty action is skipped; a malformed glob never matches.
func (p *Policy) Decide(e tools.Entry) Action {
	server := RuleServer(e)
	for _, r := range p.Rules {
		if !validAction(r.Action) || !globMatch(r.Server, server) {
			continue
		}
		if globMatch(r.Tool, e.Name) || globMatch(r.Tool, e.Origin.Name) {
			return r.Action
		}
	}
	switch p.Mode {
	case ModeAllowAll:
		return ActionAllow
	case ModeAskAll:
		return ActionAsk
	}
	a := e.Info.Annotations
	switch {
	case a == nil:
		return orDefault(p.Unannotated, ActionAsk)
	case a.ReadOnly():
		return orDefault(p.ReadOnly, ActionAllow)
	default:
		return orDefault(p.Destructive, ActionAsk)
	}
}

func validAction(a Action) bool { return a == ActionAllow || a == ActionAsk || a == ActionDeny }

func orDefault(a, def Action) Action {
	if validAction(a) {
		return a
	}
	return def
}

func globMatch(pattern, s string) bool {
	if pattern == "" {
		return true
	}
	ok, err := path.Match(pattern, s)
	return err == nil && ok
}

// RuleServer returns the server name approval rules and agent server
// lists use for e: [BuiltinServer] for built-in tools.
func RuleServer(e tools.Entry) string {
	if e.Origin.Kind == tools.KindBuiltin && e.Origin.Server == "" {
		return BuiltinServer
	}
	return e.Origin.Server
}
