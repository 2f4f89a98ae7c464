package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/switchboard-mcp/switchboard/internal/app"
)

// rankExplained is how many of the best-ranked tools `tools --rank` says
// why they matched; the rest show their scores only.
const rankExplained = 20

// rankShown is how many tools past the manifest `tools --rank` lists, so
// the cut is visible without printing a catalogue of hundreds.
const rankShown = 10

// runRank prints what the manifest would hold for request: every tool
// offered and the next few, with scores and the words that matched.
func runRank(ctx context.Context, a *app.App, out io.Writer, agentName, request string, asJSON bool) error {
	if _, err := a.Runtime(ctx); err != nil {
		return err
	}
	p, err := a.PreviewTools(ctx, agentName, request, rankExplained)
	if err != nil {
		return usageErr(err, "`switchboard agents` lists the agents; leave --agent out for the assistant")
	}
	if asJSON {
		return writeJSON(out, p)
	}
	switch {
	case p.Deferred:
		fmt.Fprintf(out, "%d tools, more than the budget of %d (toolSearch.maxTools): the manifest holds %d tools: the best-ranked below, the assistant's own when it is the assistant, and %s, which finds the rest.\n\n",
			len(p.Ranked), p.Budget, len(p.Offered), app.FindToolsName)
	case p.Budget == 0:
		fmt.Fprintf(out, "%d tools; toolSearch.maxTools is -1, so the manifest holds them all.\n\n", len(p.Ranked))
	default:
		fmt.Fprintf(out, "%d tools, within the budget of %d (toolSearch.maxTools): the manifest holds them all.\n\n", len(p.Ranked), p.Budget)
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tOFFERED\tSCORE\tNAME\tTEXT\tSERVER\tOTHER\tWHY")
	shown := shownRanked(p.Ranked)
	for i, t := range shown {
		offered := "-"
		if t.Offered {
			offered = "yes"
		}
		fmt.Fprintf(tw, "%d\t%s\t%.2f\t%s\t%.2f\t%.2f\t%s\t%s\n", i+1, offered, t.Score, t.Name,
			t.Parts.Text, t.Parts.Server, otherParts(t.Parts), why(t.Matches))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if n := len(p.Ranked) - len(shown); n > 0 {
		fmt.Fprintf(out, "... and %d more, not offered.\n", n)
	}
	fmt.Fprintln(out, "\nTEXT: the tool's own words and concepts; SERVER: its server as a whole (with the server's instructions);\nOTHER: named outright, used before, embedding similarity. Tools not offered are found through "+app.FindToolsName+".")
	return nil
}

// shownRanked cuts the ranking after the rankShown-th tool not offered.
func shownRanked(ranked []app.PreviewTool) []app.PreviewTool {
	past := 0
	for i, t := range ranked {
		if !t.Offered {
			past++
			if past > rankShown {
				return ranked[:i]
			}
		}
	}
	return ranked
}

func otherParts(p app.RankParts) string {
	var s []string
	if p.Mention != 0 {
		s = append(s, fmt.Sprintf("named %.2f", p.Mention))
	}
	if p.Used != 0 {
		s = append(s, fmt.Sprintf("used %.2f", p.Used))
	}
	if p.Embedding != 0 {
		s = append(s, fmt.Sprintf("embedding %.2f", p.Embedding))
	}
	if len(s) == 0 {
		return "-"
	}
	return strings.Join(s, ", ")
}

// why lists the best matches of a tool: term (field score).
func why(ms []app.RankMatch) string {
	if len(ms) == 0 {
		return "-"
	}
	var s []string
	for _, m := range ms[:min(len(ms), 4)] {
		term := m.Term
		if m.Concept {
			term = "~" + term
		}
		s = append(s, fmt.Sprintf("%s (%s %.2f)", term, m.Field, m.Score))
	}
	return strings.Join(s, ", ")
}
