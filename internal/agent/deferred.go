package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
	"github.com/switchboard-mcp/switchboard/internal/tools/rank"
)

// FindToolsName is the name of the tool through which a model searches the
// tools it was not offered (see [Options].ToolBudget). A catalogue tool of
// the same name is hidden while tools are deferred, so the name means one
// tool.
const FindToolsName = "find_tools"

// DefaultToolBudget is how many tools a model is offered at once when
// [Options].ToolBudget is zero. Models choose worse among more tools, and
// the retriever finds the tool a request needs within its first 40 for
// 0.99 of package rank's development requests (docs/BENCHMARKS.md).
const DefaultToolBudget = 40

// Bounds of one find_tools answer.
const (
	findDefaultLimit = 5
	findMaxLimit     = 10
	findDescBytes    = 300
)

// findLinePrefix starts each tool line of a find_tools result; the loaded
// tools are read back from the stored results by it (see loadedTools).
const findLinePrefix = "- "

var findToolsSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"query":{"type":"string","description":"What the tool should do, in a few words (for example: send an e-mail, weather forecast, create a calendar event)"},` +
	fmt.Sprintf(`"limit":{"type":"integer","minimum":1,"maximum":%d,"description":"How many tools to load at most; default %d"}`, findMaxLimit, findDefaultLimit) +
	`},"required":["query"]}`)

const findToolsDesc = "Search the other available tools and load the best matches: the tools offered so far are only some of them. " +
	"Call it when none of your tools fits the request; the tools it finds can be called right after, by name, for the rest of the conversation."

// deferral is one agent run's deferred catalogue: the tools it may call but
// was not offered, and the index to search them with. Nil when every tool
// is offered.
type deferral struct {
	index *rank.Index
	// allowed are the catalogue names the run may call (cat.entries at
	// the start of the run): only they are ever found or loaded.
	allowed map[string]bool
	// query is what the offered tools were ranked against.
	query rank.Query
}

// budget returns the configured tool budget; 0 means no deferral.
func (r *Runtime) budget() int {
	switch b := r.opts.ToolBudget; {
	case b < 0:
		return 0
	case b == 0:
		return DefaultToolBudget
	default:
		return max(b, 2) // room for one tool beside find_tools
	}
}

// deferTools cuts cat down to the budget when it holds more tools: it keeps
// the agent-management and client tools, the tools loaded earlier in the
// conversation (hist) and the best-ranked of the rest for msgs, and adds
// find_tools. It returns nil, leaving cat alone, when everything fits.
func (r *Runtime) deferTools(ctx context.Context, cat *catalog, hist, msgs []llm.Message) *deferral {
	budget := r.budget()
	if budget == 0 || len(cat.specs) <= budget || cat.own[FindToolsName] || cat.client[FindToolsName] {
		// A caller's own find_tools keeps its meaning: nothing is deferred.
		return nil
	}
	keep := make(map[string]bool)
	d := &deferral{allowed: make(map[string]bool, len(cat.specs))}
	for _, s := range cat.specs {
		switch {
		case cat.own[s.Name] || cat.client[s.Name]:
			keep[s.Name] = true
		case s.Name != FindToolsName:
			d.allowed[s.Name] = true
		}
	}
	// One index of the whole catalogue serves every agent and user; what
	// this run may see is filtered by allowed.
	d.index = r.indexFor(ctx)
	for _, name := range loadedTools(hist) {
		if d.allowed[name] {
			keep[name] = true
		}
	}
	room := budget - 1 - len(keep) // one place is find_tools'
	q := rankQuery(msgs)
	q.Vector = r.queryVector(ctx, q.Text)
	d.query = q
	if room > 0 {
		for _, s := range d.index.Rank(q) {
			if room == 0 {
				break
			}
			if d.allowed[s.Name] && !keep[s.Name] {
				keep[s.Name] = true
				room--
			}
		}
	}
	specs := cat.specs[:0:0]
	for _, s := range cat.specs {
		if keep[s.Name] {
			specs = append(specs, s)
		}
	}
	cat.specs = append(specs, llm.ToolSpec{Name: FindToolsName, Description: findToolsDesc, Parameters: findToolsSchema})
	cat.find = d
	return d
}

// find runs one find_tools call: it searches the allowed tools for the
// query and lists the best, which the run then offers (see load).
func (d *deferral) find(ctx context.Context, r *Runtime, args json.RawMessage) *tools.Result {
	var in struct {
		Query string          `json:"query"`
		Limit json.RawMessage `json:"limit"`
	}
	if err := json.Unmarshal(args, &in); err != nil || strings.TrimSpace(in.Query) == "" {
		return tools.ErrorResult(`find_tools needs {"query": "what the tool should do"}; call it again with a short description of the task`)
	}
	k := findLimit(in.Limit)
	var b strings.Builder
	n := 0
	q := rank.Query{Text: clipEnd(in.Query, 1000)}
	q.Vector = r.queryVector(ctx, q.Text)
	for _, s := range d.index.Search(q, d.index.Len()) {
		if n == k {
			break
		}
		if !d.allowed[s.Name] {
			continue
		}
		doc := d.index.Doc(s.Index)
		if n == 0 {
			b.WriteString("Loaded these tools; call them by name like any other:\n")
		}
		fmt.Fprintf(&b, "%s%s: %s\n", findLinePrefix, s.Name, oneLine(doc.Description, findDescBytes))
		if p := paramSummary(doc.InputSchema); p != "" {
			// The arguments too: a text-mode manifest cut to its budget
			// may name a loaded tool without describing it.
			b.WriteString("  arguments: " + p + "\n")
		}
		n++
	}
	if n == 0 {
		return tools.TextResult(fmt.Sprintf("No tool matches %q. Try other words (what the tool acts on, or what it does), or answer without a tool.", in.Query))
	}
	return tools.TextResult(b.String())
}

// paramSummary lists the top-level arguments of a JSON Schema, the
// required ones marked, in a bounded line; "" when there are none or the
// schema cannot be read.
func paramSummary(schema json.RawMessage) string {
	var sc struct {
		Properties map[string]struct {
			Type json.RawMessage `json:"type"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if json.Unmarshal(schema, &sc) != nil || len(sc.Properties) == 0 {
		return ""
	}
	names := slices.Sorted(maps.Keys(sc.Properties))
	parts := make([]string, 0, len(names))
	for _, name := range names {
		p := name
		var typ string
		if json.Unmarshal(sc.Properties[name].Type, &typ) == nil && typ != "" {
			p += " " + typ
		}
		if slices.Contains(sc.Required, name) {
			p += " (required)"
		}
		parts = append(parts, p)
	}
	return oneLine(strings.Join(parts, ", "), findDescBytes)
}

// findLimit reads find_tools' limit leniently: models send 5, 5.0 or "5";
// anything else, or nothing, means the default.
func findLimit(raw json.RawMessage) int {
	var f float64
	if json.Unmarshal(raw, &f) != nil {
		var s string
		if json.Unmarshal(raw, &s) != nil || json.Unmarshal([]byte(s), &f) != nil {
			return findDefaultLimit
		}
	}
	if f < 1 {
		return findDefaultLimit
	}
	return int(min(f, findMaxLimit))
}

// load offers the tools a find_tools result named, for the rest of the run.
func (cat *catalog) load(m llm.Message) {
	if cat.find == nil || m.ToolName != FindToolsName || m.IsError {
		return
	}
	for _, name := range foundNames(m.Text()) {
		if !cat.find.allowed[name] || slices.ContainsFunc(cat.specs, func(s llm.ToolSpec) bool { return s.Name == name }) {
			continue
		}
		e := cat.entries[name]
		cat.specs = append(cat.specs, llm.ToolSpec{Name: e.Name, Description: e.Info.Description, Parameters: e.Info.InputSchema})
	}
}

// loadedTools returns the tools the conversation has loaded: those named in
// find_tools results and those called. They are derived from the stored
// messages, not kept aside, so a reloaded conversation, or one continued
// on another replica, offers them too. The caller checks each against the
// catalogue the run may use: a name in the history grants nothing.
func loadedTools(hist []llm.Message) []string {
	var out []string
	for i := range hist {
		m := &hist[i]
		for _, c := range m.ToolCalls {
			out = append(out, c.Name)
		}
		if m.Role == llm.RoleTool && m.ToolName == FindToolsName && !m.IsError {
			out = append(out, foundNames(m.Text())...)
		}
	}
	return out
}

// foundNames reads the tool names of a find_tools result.
func foundNames(text string) []string {
	var out []string
	for line := range strings.Lines(text) {
		rest, ok := strings.CutPrefix(line, findLinePrefix)
		if !ok {
			continue
		}
		if name, _, ok := strings.Cut(rest, ": "); ok && name != "" {
			out = append(out, name)
		}
	}
	return out
}

// rankQuery is what the offered tools are ranked against: the latest user
// message, the few messages before it (most recent first, tool results
// left out: they are data, not what the user asks for) and the tools
// called so far.
func rankQuery(msgs []llm.Message) rank.Query {
	const (
		contextMessages = 4
		maxBytes        = 4000
	)
	var q rank.Query
	last := -1
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llm.RoleUser && last < 0 {
			last = i
		}
		for _, c := range msgs[i].ToolCalls {
			if !slices.Contains(q.Used, c.Name) {
				q.Used = append(q.Used, c.Name)
			}
		}
	}
	if last < 0 {
		return q
	}
	q.Text = clipEnd(msgs[last].Text(), maxBytes)
	for i := last - 1; i >= 0 && len(q.Context) < contextMessages; i-- {
		if m := &msgs[i]; m.Role == llm.RoleUser || m.Role == llm.RoleAssistant {
			if s := strings.TrimSpace(m.Text()); s != "" {
				q.Context = append(q.Context, clipEnd(s, maxBytes/contextMessages))
			}
		}
	}
	return q
}

// indexFor returns the retrieval index of the catalogue, rebuilt only when
// the catalogue or the rank options change.
func (r *Runtime) indexFor(ctx context.Context) *rank.Index {
	entries := r.tools.List()
	key := catalogueKey(entries)
	var opts *rank.Options
	if r.opts.RankOptions != nil {
		opts = r.opts.RankOptions(ctx)
	}
	r.ixMu.Lock()
	defer r.ixMu.Unlock()
	if r.ix != nil && r.ixKey == key && r.ixOpts == opts {
		return r.ix
	}
	r.ix, r.ixKey, r.ixOpts = rank.New(rank.DocsOf(entries), opts), key, opts
	return r.ix
}

// catalogueKey fingerprints what the index reads of entries.
func catalogueKey(entries []tools.Entry) uint64 {
	h := fnv.New64a()
	for _, e := range entries {
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%s\x01", e.Name, e.Origin.Server, e.Info.Title, e.Info.Description, e.Info.InputSchema)
	}
	return h.Sum64()
}

// oneLine returns s on one line, cut to n bytes.
func oneLine(s string, n int) string {
	return clipEnd(strings.Join(strings.Fields(s), " "), n)
}

// queryVector embeds text when embeddings are configured; nil otherwise,
// and for an empty text.
func (r *Runtime) queryVector(ctx context.Context, text string) []float32 {
	if r.opts.QueryVector == nil || strings.TrimSpace(text) == "" {
		return nil
	}
	return r.opts.QueryVector(ctx, text)
}

// findTools runs a find_tools call. It needs no approval (it only reads the
// catalogue the run may already use) but is audited and reported like any
// call, so a user sees what the model searched for.
func (t *turn) findTools(ctx context.Context, agent string, d *deferral, c llm.ToolCall, info *CallInfo, rec store.AuditRecord) callOutcome {
	rec.Approval = store.AuditAutoApproved
	call, refused, ok := t.begin(ctx, agent, c, info, rec)
	if !ok {
		return refused
	}
	t.emit(Event{Kind: EventToolStart, Agent: agent, Call: info})
	start := time.Now()
	res := d.find(ctx, t.r, c.Arguments)
	dur := time.Since(start)
	msg := store.Message{Message: resultToMessage(c, res), Agent: agent, RunID: t.runID}
	outcome := store.OutcomeOK
	ares := store.AuditResult{Outcome: outcome, Duration: dur, ResultBytes: int64(len(msg.Text()))}
	if res.IsError {
		outcome = store.OutcomeToolError
		ares.Outcome, ares.Error = outcome, truncate(msg.Text(), 1024)
	}
	call.Finish(ctx, ares)
	t.emit(Event{Kind: EventToolEnd, Agent: agent, Call: info, Result: &CallResult{
		Outcome: outcome, Text: msg.Text(), IsError: res.IsError, Duration: dur, Approval: rec.Approval,
	}})
	return callOutcome{msg: msg, outcome: outcome}
}
