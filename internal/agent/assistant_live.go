package agent

import "github.com/switchboard-mcp/switchboard/internal/store"

// SetAssistant replaces the default assistant (see [Options.Assistant])
// for the runs that start from now on: a run reads its agent once, when it
// starts, so a run in flight keeps the assistant it started with. The
// configuration's reload calls it when the assistant section changes.
func (r *Runtime) SetAssistant(a store.Agent) {
	r.assistant.Store(&a)
}

// assistantSpec is the default assistant runs start with now.
func (r *Runtime) assistantSpec() store.Agent {
	if a := r.assistant.Load(); a != nil {
		return *a
	}
	return r.opts.Assistant
}
