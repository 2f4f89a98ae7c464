package gate

import (
	"path"
	"strings"
)

// ModelPrefix starts a permission glob that names models rather than
// tools: "model:small" or "model:*". No tool name contains a colon, so such
// a glob never matches a tool, and a tool glob never names a model.
const ModelPrefix = "model:"

// PermitsModel reports whether c may ask for the configured model name as
// a turn's model. It is the one rule for that, on every surface that lets
// a caller choose a model (a conversation message, /v1/chat/completions,
// the model listings). A caller whose globs name no model (none starts
// with [ModelPrefix]) may use every model, as before models could be
// restricted; once one does, only the models those globs match. The local
// caller (nil globs) may use every model. An agent's own model is the
// admin's choice and is not checked here.
func (c *Caller) PermitsModel(name string) bool {
	restricted := false
	for _, g := range c.Permissions {
		mg, ok := strings.CutPrefix(g, ModelPrefix)
		if !ok {
			continue
		}
		restricted = true
		if m, err := path.Match(mg, name); err == nil && m {
			return true
		}
	}
	return !restricted
}
