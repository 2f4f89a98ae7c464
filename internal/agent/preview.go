package agent

import (
	"context"

	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/tools/rank"
)

// Preview is what the assistant's model would be offered for one request
// that opens a conversation, with the ranking behind it; see
// [Runtime.Preview].
type Preview struct {
	// Budget is the tool budget in force (0: every tool is offered).
	Budget int `json:"budget"`
	// Deferred reports whether the catalogue exceeds the budget, so that
	// only Offered tools and find_tools are offered.
	Deferred bool `json:"deferred"`
	// Offered lists the names the model would see, in the order sent.
	Offered []string `json:"offered"`
	// Ranked holds every catalogue tool, most relevant first.
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

// Preview ranks the catalogue for request as the assistant's first turn
// would, and reports which tools the manifest would hold. explain is how
// many of the best-ranked tools get their matches. It calls no model (but
// embeds request when embeddings are configured).
func (r *Runtime) Preview(ctx context.Context, request string, explain int) Preview {
	cat := r.catalogFor(r.opts.Assistant, nil, nil)
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
	for i, s := range ix.Rank(q) {
		pt := PreviewTool{Scored: s, Offered: offered[s.Name]}
		if i < explain {
			pt.Matches = ix.Explain(q, s.Name)
		}
		p.Ranked = append(p.Ranked, pt)
	}
	return p
}
