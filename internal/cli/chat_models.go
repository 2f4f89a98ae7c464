package cli

import "github.com/switchboard-mcp/switchboard/internal/cli/chat"

var _ chat.ModelLister = (*chatBackend)(nil)

// Models lists the configured models for the terminal chat's /model. The
// terminal chat acts as the local user, who may use every model.
func (b *chatBackend) Models() []string {
	ms := b.app.Models()
	out := make([]string, 0, len(ms))
	for _, m := range ms {
		out = append(out, m.Name)
	}
	return out
}
