package chat

// Prompt is a prompt an MCP server offers, as /prompts lists it.
type Prompt struct {
	// Name is server__prompt, the slash command that runs it.
	Name        string
	Description string
	Arguments   []PromptArgument
}

// PromptArgument is one argument of a [Prompt].
type PromptArgument struct {
	Name        string
	Description string
	Required    bool
}

// Resource is a resource an MCP server offers, attachable with @.
type Resource struct {
	// URI is the caller's URI (switchboard://server/...).
	URI         string
	Name        string
	Description string
}

// CompleteRequest asks for values of Argument of the prompt Prompt that
// start like Value; Context holds the arguments already given.
type CompleteRequest struct {
	Prompt   string
	Argument string
	Value    string
	Context  map[string]string
}

// Additions are what a turn carries besides the typed text: a prompt run
// in its place and resources attached to it.
type Additions struct {
	// Prompt is the prompt run (server__prompt), "" for none; Arguments
	// are its arguments.
	Prompt    string
	Arguments map[string]string
	// URIs are the resources attached.
	URIs []string
}

// empty reports whether a carries nothing.
func (a *Additions) empty() bool { return a == nil || a.Prompt == "" && len(a.URIs) == 0 }
