package textcall

import (
	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/tools/rank"
)

// rankIndexer ranks with the real retriever, as internal/app wires it, so
// the manifest tests see real rankings. Only tests import package rank.
func rankIndexer(tools []llm.ToolSpec) Ranker {
	docs := make([]rank.Doc, len(tools))
	for i, t := range tools {
		server, tool := rank.SplitName(t.Name)
		docs[i] = rank.Doc{Name: t.Name, Server: server, Tool: tool, Description: t.Description, InputSchema: t.Parameters}
	}
	return rankAdapter{rank.New(docs, nil)}
}

type rankAdapter struct{ ix *rank.Index }

func (a rankAdapter) Rank(q Query) []int {
	ranked := a.ix.Rank(rank.Query{Text: q.Text, Context: q.Context, Used: q.Used})
	out := make([]int, len(ranked))
	for i, s := range ranked {
		out[i] = s.Index
	}
	return out
}
