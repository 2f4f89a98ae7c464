package textcall

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/llm"
)

// Query is the conversation a manifest's tools are ranked against.
type Query struct {
	// Text is the latest user message.
	Text string
	// Context holds earlier turns, most recent first.
	Context []string
	// Used holds the names of tools already called in the conversation.
	Used []string
}

// Ranker orders a catalogue's tools by relevance to a conversation. Rank
// returns indices into the tool list it was built for, most relevant
// first, each once. It must be safe for concurrent use.
type Ranker interface {
	Rank(q Query) []int
}

// Indexer builds the [Ranker] of a tool list. The retriever lives above
// this package (internal/tools/rank), so internal/app passes it in.
type Indexer func(tools []llm.ToolSpec) Ranker

// Catalog is a tool list prepared for the text protocol: each tool's
// manifest entry rendered once, a ranking index, and the [Parser] for
// replies. It is immutable and safe for concurrent use.
type Catalog struct {
	tools   []llm.ToolSpec
	entries []string
	cost    []int  // estimated tokens of each entry
	index   Ranker // nil: catalogue order
	parser  *Parser
}

// NewCatalog prepares tools, kept in the given order. index builds the
// ranking used when not every tool fits a manifest; nil keeps catalogue
// order.
func NewCatalog(tools []llm.ToolSpec, index Indexer) *Catalog {
	c := &Catalog{tools: slices.Clone(tools)}
	names := make([]string, len(tools))
	for i, t := range tools {
		e, _ := renderEntry(t)
		c.entries = append(c.entries, e)
		c.cost = append(c.cost, EstimateTokens(e))
		names[i] = t.Name
	}
	if index != nil {
		c.index = index(c.tools)
	}
	c.parser = NewParser(names)
	c.parser.types = schemaTypes(tools)
	return c
}

// Parser returns the parser for replies that may call this catalogue's tools.
func (c *Catalog) Parser() *Parser { return c.parser }

// Len returns the number of tools.
func (c *Catalog) Len() int { return len(c.tools) }

// DefaultMaxTools is how many tools a manifest describes at most when not
// all fit its budget. Models choose worse among more tools, and the
// retriever finds the tool a request needs within its first 40 for 0.99
// of the development requests of package rank's toolbench, and within its
// first 20 as often (docs/BENCHMARKS.md): 40 leaves a margin for requests
// unlike those.
const DefaultMaxTools = 40

// ManifestOptions choose what a manifest shows. The zero value shows every
// tool.
type ManifestOptions struct {
	// Budget is the most tokens (as [EstimateTokens] counts them) the
	// manifest may take. Zero means no limit. The instructions are always
	// included, even when they alone exceed the budget.
	Budget int
	// MaxTools caps how many tools are described in full. Zero means no
	// cap when every tool fits the budget and [DefaultMaxTools] when the
	// tools must be ranked to fit; a negative value means no cap at all.
	MaxTools int
	// Query is the conversation the tools are ranked against when not
	// all fit: the latest user message, the few messages before it and
	// the tools already called.
	Query Query
	// Pinned names tools that rank before all others when the tools are
	// ranked to fit, so they are described whenever they fit at all.
	Pinned []string
}

// Manifest is the rendered tool section of a system prompt.
type Manifest struct {
	Text string
	// Shown are the tools described in full, in catalogue order; Listed
	// are the others named in the "also available" line, most relevant
	// first; Omitted counts those not even named.
	Shown, Listed []string
	Omitted       int
}

// Manifest renders the tool section for a system prompt. When every tool
// fits the budget they are all described, in catalogue order. Otherwise the
// most relevant tools (see [Catalog.Rank]) are described, still in catalogue
// order so the prompt changes little from turn to turn, and the rest are
// named in an "also available on request" line, cut with a count. The
// result depends only on the catalogue and opts.
func (c *Catalog) Manifest(opts ManifestOptions) Manifest {
	all := len(c.tools)
	maxTools := opts.MaxTools
	if maxTools <= 0 || maxTools > all {
		maxTools = all
	}
	total := EstimateTokens(manifestHeader)
	for _, n := range c.cost {
		total += n
	}
	if maxTools == all && (opts.Budget <= 0 || total <= opts.Budget) {
		return c.render(allIndices(all), nil, 0)
	}
	if opts.MaxTools == 0 {
		maxTools = min(all, DefaultMaxTools)
	}
	budget := opts.Budget
	if budget <= 0 {
		budget = int(^uint(0) >> 1)
	}
	order := c.Rank(opts.Query)
	if len(opts.Pinned) > 0 {
		// A stable sort keeps the rank order within each group.
		slices.SortStableFunc(order, func(a, b int) int {
			pa, pb := slices.Contains(opts.Pinned, c.tools[a].Name), slices.Contains(opts.Pinned, c.tools[b].Name)
			switch {
			case pa && !pb:
				return -1
			case pb && !pa:
				return 1
			}
			return 0
		})
	}
	// Keep room for the "also available" line: a fair share of the budget,
	// never more than the full list of names would need.
	reserve := min(budget/8, EstimateTokens(alsoAvailable(c.names(order), 0)))
	used := EstimateTokens(manifestHeader)
	shown := make([]bool, all)
	n := 0
	for _, i := range order {
		if n == maxTools {
			break
		}
		if used+c.cost[i] > budget-reserve {
			continue // a shorter, less relevant entry may still fit
		}
		shown[i] = true
		used += c.cost[i]
		n++
	}
	var show, rest []int
	for i := range all {
		if shown[i] {
			show = append(show, i)
		}
	}
	for _, i := range order {
		if !shown[i] {
			rest = append(rest, i)
		}
	}
	// Name as many of the rest as the remaining budget allows.
	names := c.names(rest)
	listed := fitNames(names, budget-used)
	return c.render(show, names[:listed], len(names)-listed)
}

// Rank returns the indices of the catalogue's tools, most relevant to the
// conversation first, as the catalogue's [Ranker] orders them; without one,
// in catalogue order.
func (c *Catalog) Rank(q Query) []int {
	if c.index == nil {
		out := make([]int, len(c.tools))
		for i := range out {
			out[i] = i
		}
		return out
	}
	return c.index.Rank(q)
}

func (c *Catalog) render(show []int, listed []string, omitted int) Manifest {
	var b strings.Builder
	b.WriteString(manifestHeader)
	m := Manifest{Listed: listed, Omitted: omitted}
	for _, i := range show {
		b.WriteString(c.entries[i])
		m.Shown = append(m.Shown, c.tools[i].Name)
	}
	if len(show) == 0 {
		b.WriteString("(none described here)\n")
	}
	if len(listed) > 0 || omitted > 0 {
		b.WriteString(alsoAvailable(listed, omitted))
	}
	m.Text = b.String()
	return m
}

// alsoAvailable renders the line naming tools not described in full.
func alsoAvailable(names []string, more int) string {
	s := "Also available on request: " + strings.Join(names, ", ")
	if more > 0 {
		if len(names) > 0 {
			s += ","
		}
		s += fmt.Sprintf(" and %d more", more)
	}
	return s + "\n"
}

// fitNames returns how many of names the "also available" line can name
// within budget tokens, counting the ", and N more" that follows them.
func fitNames(names []string, budget int) int {
	size := len(alsoAvailable(nil, 0))
	fit := 0
	for k, n := range names {
		if k > 0 {
			size += len(", ")
		}
		size += len(n)
		tail := 0
		if more := len(names) - k - 1; more > 0 {
			tail = len(fmt.Sprintf(", and %d more", more))
		}
		if (size+tail+3)/4 > budget {
			break
		}
		fit = k + 1
	}
	return fit
}

func (c *Catalog) names(idx []int) []string {
	out := make([]string, len(idx))
	for k, i := range idx {
		out[k] = c.tools[i].Name
	}
	return out
}

func allIndices(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// schemaTypes reads each tool's parameter types from its JSON schema, for
// the families that write values as text. A type list ("string","null")
// counts as its first non-null type.
func schemaTypes(tools []llm.ToolSpec) map[string]map[string]string {
	out := make(map[string]map[string]string, len(tools))
	for _, t := range tools {
		var s struct {
			Properties map[string]struct {
				Type json.RawMessage `json:"type"`
			} `json:"properties"`
		}
		if len(t.Parameters) == 0 || json.Unmarshal(t.Parameters, &s) != nil {
			continue
		}
		m := make(map[string]string, len(s.Properties))
		for name, prop := range s.Properties {
			var one string
			var many []string
			switch {
			case json.Unmarshal(prop.Type, &one) == nil:
				m[name] = one
			case json.Unmarshal(prop.Type, &many) == nil:
				for _, ty := range many {
					if ty != "null" {
						m[name] = ty
						break
					}
				}
			}
		}
		out[t.Name] = m
	}
	return out
}
