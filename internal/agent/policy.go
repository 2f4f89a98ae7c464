package agent

import (
	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// The approval policy is the gate's: agent runs, the tools API and the MCP
// gateway decide with the same code. These names keep the agent's API.
type (
	Action     = gate.Action
	PolicyMode = gate.PolicyMode
	Rule       = gate.Rule
	Policy     = gate.Policy
)

const (
	ActionAllow   = gate.ActionAllow
	ActionAsk     = gate.ActionAsk
	ActionDeny    = gate.ActionDeny
	ModeDefault   = gate.ModeDefault
	ModeAllowAll  = gate.ModeAllowAll
	ModeAskAll    = gate.ModeAskAll
	BuiltinServer = gate.BuiltinServer
)

// serverOf returns the server name rules and agents use for e.
func serverOf(e tools.Entry) string { return gate.RuleServer(e) }
