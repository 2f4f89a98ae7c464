package app

import (
	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/llm/textcall"
	"github.com/switchboard-mcp/switchboard/internal/tools/rank"
)

// textcallIndexer gives the text protocol the tool retriever, which an
// adapter may not import: it ranks a manifest's tools when not all fit.
func textcallIndexer(tools []llm.ToolSpec) textcall.Ranker {
	docs := make([]rank.Doc, len(tools))
	for i, t := range tools {
		server, tool := rank.SplitName(t.Name)
		docs[i] = rank.Doc{Name: t.Name, Server: server, Tool: tool, Description: t.Description, InputSchema: t.Parameters}
	}
	return textcallRanker{rank.New(docs, nil)}
}

// textcallRanker adapts a [rank.Index] to [textcall.Ranker].
type textcallRanker struct{ ix *rank.Index }

var _ textcall.Ranker = textcallRanker{}

func (r textcallRanker) Rank(q textcall.Query) []int {
	ranked := r.ix.Rank(rank.Query{Text: q.Text, Context: q.Context, Used: q.Used})
	out := make([]int, len(ranked))
	for i, s := range ranked {
		out[i] = s.Index
	}
	return out
}
