package agent

import (
	"context"

	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/tools/rank"
)

// Preview is what an agent's model would be offered for one request that
// opens a conversation, with the ranking behind it; see [Runtime.Preview].
type Preview struct {
	// Budget is the tool budget in force (0: every tool is offered).
	Budget int `json:"budget"`
	// Deferred reports whether the catalogue exceeds the budget, so that
	// only Offered tools and find_tools are offered.
	Deferred bool `json:"deferred"`
	// Offered lists the names the model would see, in the order sent.
	Offered []string `json:"offered"`
	// Ranked holds every catalogue tool the agent may use, most relevant
	// first.
	Ranked []PreviewTool `json:"ranked"`
}

// PreviewTool is one tool's place in a [Preview].
type PreviewTool struct {
	rank.Scored
	// Offered reports whether the tool is in the manifest.
	Offered bool `json:"offered"`
	// Matches say which words and concepts of the request matched which
	// part of the tool; set for the first explain tools only.
	Matches []rank.Match `json:"matches,omitempty"`
}

// Preview ranks the catalogue for request as the first turn of the named
// agent ("" for the assistant) would, and reports which tools the manifest
// would hold. explain is how many of the best-ranked tools get their
// matches. It calls no model (but embeds request when embeddings are
// configured). The error is for an unknown agent.
func (r *Runtime) Preview(ctx context.Context, agent, request string, explain int) (Preview, error) {
	spec, err := r.agent(ctx, agent)
	if err != nil {
		return Preview{}, err
	}
	local := gate.Local(gate.LocalUser) // the person at the terminal
	cat := r.catalogFor(spec, &local, nil)
	msgs := []llm.Message{llm.UserText(request)}
	p := Preview{Budget: r.budget()}
	d := r.deferTools(ctx, &cat, nil, msgs)
	p.Deferred = d != nil
	offered := make(map[string]bool, len(cat.specs))
	for _, s := range cat.specs {
		offered[s.Name] = true
		p.Offered = append(p.Offered, s.Name)
	}
	ix := r.indexFor(ctx)
	var q rank.Query
	if d != nil {
		q = d.query // already embedded
	} else {
		q = rankQuery(msgs)
		q.Vector = r.queryVector(ctx, q.Text)
	}
	for _, s := range ix.Rank(q) {
		if _, ok := cat.entries[s.Name]; !ok {
			continue // not this agent's
		}
		pt := PreviewTool{Scored: s, Offered: offered[s.Name]}
		if len(p.Ranked) < explain {
			pt.Matches = ix.Explain(q, s.Name)
		}
		p.Ranked = append(p.Ranked, pt)
	}
	return p, nil
}
