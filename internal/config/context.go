package config

import (
	"maps"
	"slices"
)

// Context sets how a conversation that outgrows its model's context window
// goes on: its older turns are summarised by a model into a marked summary
// message.
type Context struct {
	// SummaryModel names an entry of Config.Models that writes the
	// summaries, typically a cheaper one than the conversation's; empty
	// means the model of the turn. An agent's own context.summaryModel
	// wins over the global one.
	SummaryModel string `json:"summaryModel,omitempty"`
}

// SummaryModelFor returns the model that summarises the conversations of
// the named agent ("" is the assistant): the agent's own
// context.summaryModel, else the global one, else "" (the turn's model).
func (c *Config) SummaryModelFor(agent string) string {
	if a, ok := c.Agents[agent]; ok && agent != "" && a.Context.SummaryModel != "" {
		return a.Context.SummaryModel
	}
	return c.Context.SummaryModel
}

// validateContext checks that every summaryModel names a configured model.
func (c *Config) validateContext(p *problems) {
	check := func(at, m string) {
		if _, ok := c.Models[m]; m != "" && !ok {
			p.add(at, "no model named %q to write summaries; %s, or leave summaryModel out to summarise with the conversation's own model", m, modelChoices(c.Models))
		}
	}
	check("context.summaryModel", c.Context.SummaryModel)
	for _, name := range slices.Sorted(maps.Keys(c.Agents)) {
		check(joinKey("agents", name)+".context.summaryModel", c.Agents[name].Context.SummaryModel)
	}
}
