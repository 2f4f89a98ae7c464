package tools

// What MCP servers offer besides tools. The records live here, beside
// [Content], so that the host (mcphost, which reads them from servers) and
// the gateway (mcpserve, which serves them on /mcp) share one definition
// without importing each other.

// Resource is one resource a server offers.
type Resource struct {
	URI         string
	Name        string
	Title       string
	Description string
	MIMEType    string
	Size        int64 // 0 when unknown
}

// ResourceTemplate is a parameterised resource (RFC 6570 URI template).
type ResourceTemplate struct {
	URITemplate string
	Name        string
	Title       string
	Description string
	MIMEType    string
}

// ResourceContents is one part of a read resource: Text or Blob.
type ResourceContents struct {
	URI      string
	MIMEType string
	Text     string
	Blob     []byte
}

// Prompt is one prompt template a server offers.
type Prompt struct {
	Name        string
	Title       string
	Description string
	Arguments   []PromptArgument
}

// PromptArgument is one argument of a [Prompt].
type PromptArgument struct {
	Name        string
	Title       string
	Description string
	Required    bool
}

// PromptMessage is one message of an expanded prompt.
type PromptMessage struct {
	Role    string // "user" or "assistant"
	Content Content
}

// PromptResult is an expanded prompt.
type PromptResult struct {
	Description string
	Messages    []PromptMessage
}

// CompleteRef names what an argument is completed for (MCP
// completion/complete): a prompt (Prompt set, its name) or a resource
// template (Template set, its URI template).
type CompleteRef struct {
	Prompt   string
	Template string
}

// CompleteRequest asks for values of one argument of a prompt or one
// variable of a resource template. Context holds the values already
// chosen for the others, which a server may use to narrow the answer.
type CompleteRequest struct {
	Ref      CompleteRef
	Argument string
	Value    string
	Context  map[string]string
}

// Completion is a server's answer: at most 100 values, with the total it
// knows of and whether there are more than it sent.
type Completion struct {
	Values  []string
	Total   int
	HasMore bool
}
