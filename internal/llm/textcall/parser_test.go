package textcall

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// got is a comparable view of a Part.
type got struct {
	Text     string `json:",omitempty"`
	Name     string `json:",omitempty"`
	Args     string `json:",omitempty"`
	Err      string `json:",omitempty"`
	Repaired bool   `json:",omitempty"`
}

func view(parts []Part) []got {
	var out []got
	for _, p := range parts {
		if p.Call == nil {
			out = append(out, got{Text: p.Text})
			continue
		}
		g := got{Name: p.Call.Name, Args: string(p.Call.Arguments), Repaired: p.Call.Repaired}
		if p.Call.Err != nil {
			g.Err = p.Call.Err.Error()
		}
		out = append(out, g)
	}
	return out
}

func txt(s string) got               { return got{Text: s} }
func call(name, args string) got     { return got{Name: name, Args: args} }
func fixed(name, args string) got    { return got{Name: name, Args: args, Repaired: true} }
func bad(name, args, err string) got { return got{Name: name, Args: args, Err: err} }

var testNames = []string{"search", "read_file", "files__write_file", "get_weather"}

const unknownSuffix = "; available: search, read_file, files__write_file, get_weather"

// parseCases is shared by the one-shot, streaming and fuzz tests.
var parseCases = []struct {
	name string
	in   string
	want []got
}{
	{"plain text", "Hello, world.", []got{txt("Hello, world.")}},
	{"empty", "", nil},
	{
		"tool_code", `<tool_code>{"tool_name": "search", "arguments": {"q": "go"}}</tool_code>`,
		[]got{call("search", `{"q":"go"}`)},
	},
	{
		"text around call", "Let me look.\n<tool_code>{\"tool_name\":\"search\",\"arguments\":{\"q\":\"go\"}}</tool_code>\nDone?",
		[]got{txt("Let me look.\n"), call("search", `{"q":"go"}`), txt("\nDone?")},
	},
	{
		"tool_use with tool key", `<tool_use>{"tool": "read_file", "arguments": {"path": "a.txt"}}</tool_use>`,
		[]got{call("read_file", `{"path":"a.txt"}`)},
	},
	{
		"tool_call hermes style", "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}}\n</tool_call>",
		[]got{call("get_weather", `{"city":"Oslo"}`)},
	},
	{
		"upper-case tags", `<TOOL_CODE>{"name":"search","args":{"q":1}}</TOOL_CODE>`,
		[]got{call("search", `{"q":1}`)},
	},
	{
		"mixed close tag", `<tool_code>{"name":"search","input":{}}</tool_use>`,
		[]got{call("search", `{}`)},
	},
	{
		"parameters key", `<tool_code>{"name":"search","parameters":{"q":"x"}}</tool_code>`,
		[]got{call("search", `{"q":"x"}`)},
	},
	{
		"function key as name", `<tool_code>{"function":"search","arguments":{"q":"x"}}</tool_code>`,
		[]got{call("search", `{"q":"x"}`)},
	},
	{
		"openai shape", `<tool_call>{"type":"function","function":{"name":"search","arguments":"{\"q\":\"x\"}"}}</tool_call>`,
		[]got{call("search", `{"q":"x"}`)},
	},
	{
		"arguments as string", `<tool_code>{"tool_name":"search","arguments":"{\"q\": \"x\"}"}</tool_code>`,
		[]got{call("search", `{"q":"x"}`)},
	},
	{
		"arguments as empty string", `<tool_code>{"tool_name":"search","arguments":""}</tool_code>`,
		[]got{call("search", `{}`)},
	},
	{
		"arguments null", `<tool_code>{"tool_name":"search","arguments":null}</tool_code>`,
		[]got{call("search", `{}`)},
	},
	{
		"arguments missing in tag", `<tool_code>{"tool_name":"search"}</tool_code>`,
		[]got{call("search", `{}`)},
	},
	{
		"flat arguments in tag", `<tool_code>{"tool_name":"search","q":"x","limit":3}</tool_code>`,
		[]got{call("search", `{"limit":3,"q":"x"}`)},
	},
	{
		"two calls two blocks", `<tool_code>{"tool_name":"search","arguments":{"q":"a"}}</tool_code><tool_code>{"tool_name":"search","arguments":{"q":"b"}}</tool_code>`,
		[]got{call("search", `{"q":"a"}`), call("search", `{"q":"b"}`)},
	},
	{
		"two calls one block", "<tool_code>\n{\"tool_name\":\"search\",\"arguments\":{\"q\":\"a\"}}\n{\"tool_name\":\"read_file\",\"arguments\":{\"path\":\"b\"}}\n</tool_code>",
		[]got{call("search", `{"q":"a"}`), call("read_file", `{"path":"b"}`)},
	},
	{
		"array in block", `<tool_code>[{"tool_name":"search","arguments":{}}, {"tool_name":"read_file","arguments":{}}]</tool_code>`,
		[]got{call("search", `{}`), call("read_file", `{}`)},
	},
	{
		"fence inside tag", "<tool_code>\n```json\n{\"tool_name\":\"search\",\"arguments\":{}}\n```\n</tool_code>",
		[]got{call("search", `{}`)},
	},
	{
		"case-insensitive name", `<tool_code>{"tool_name":"Search","arguments":{}}</tool_code>`,
		[]got{call("search", `{}`)},
	},
	{
		"name without server prefix", `<tool_code>{"tool_name":"write_file","arguments":{}}</tool_code>`,
		[]got{call("files__write_file", `{}`)},
	},
	{
		"name with wrong server prefix", `<tool_code>{"tool_name":"disk__write_file","arguments":{}}</tool_code>`,
		[]got{call("files__write_file", `{}`)},
	},

	{
		"label before json in tag", "<tool_code>json\n{\"tool_name\":\"search\",\"arguments\":{}}</tool_code>",
		[]got{call("search", `{}`)},
	},

	{
		"python call in tag", `<tool_code>print(default_api.get_weather(city="Oslo", days=3, exact=True))</tool_code>`,
		[]got{fixed("get_weather", `{"city":"Oslo","days":3,"exact":true}`)},
	},
	{
		"python call, single quotes and list", `<tool_code>search(q='go', tags=['a', 'b'],)</tool_code>`,
		[]got{fixed("search", `{"q":"go","tags":["a","b"]}`)},
	},
	{
		"python call without arguments", `<tool_call>get_weather()</tool_call>`,
		[]got{call("get_weather", `{}`)},
	},
	{
		"python call in tool_code fence", "```tool_code\nget_weather(city=\"Oslo\")\n```",
		[]got{call("get_weather", `{"city":"Oslo"}`)},
	},
	{
		"unknown python call in tool_code fence stays text", "```tool_code\nlaunch(x=1)\n```",
		[]got{txt("```tool_code\nlaunch(x=1)\n```")},
	},
	{
		"python fence is code, not a call", "```python\nget_weather(city=\"Oslo\")\n```",
		[]got{txt("```python\nget_weather(city=\"Oslo\")\n```")},
	},
	{
		"positional python argument refused", `<tool_code>search("go")</tool_code>`,
		[]got{bad("", `{}`, `the tool call could not be read: unexpected word "search" at offset 0; write exactly <tool_code>{"tool_name": "NAME", "arguments": {...}}</tool_code>`)},
	},

	// Repairs.
	{
		"trailing commas", `<tool_code>{"tool_name":"search","arguments":{"q":"x","tags":["a","b",],},}</tool_code>`,
		[]got{fixed("search", `{"q":"x","tags":["a","b"]}`)},
	},
	{
		"single quotes", `<tool_code>{'tool_name': 'search', 'arguments': {'q': 'it\'s "fine"'}}</tool_code>`,
		[]got{fixed("search", `{"q":"it's \"fine\""}`)},
	},
	{
		"unquoted keys", `<tool_code>{tool_name: "search", arguments: {q: "x", max_hits: 2}}</tool_code>`,
		[]got{fixed("search", `{"q":"x","max_hits":2}`)},
	},
	{
		"python literals", `<tool_code>{"tool_name":"search","arguments":{"a":True,"b":False,"c":None}}</tool_code>`,
		[]got{fixed("search", `{"a":true,"b":false,"c":null}`)},
	},
	{
		"raw newline in string", "<tool_code>{\"tool_name\":\"files__write_file\",\"arguments\":{\"text\":\"a\nb\"}}</tool_code>",
		[]got{fixed("files__write_file", `{"text":"a\nb"}`)},
	},
	{
		"regex backslash", `<tool_code>{"tool_name":"search","arguments":{"q":"\d+"}}</tool_code>`,
		[]got{fixed("search", `{"q":"\\d+"}`)},
	},
	{
		"missing brace inside closed tag", `<tool_code>{"tool_name":"search","arguments":{"q":"x"}</tool_code>`,
		[]got{fixed("search", `{"q":"x"}`)},
	},
	{
		"missing brace at end of message", `<tool_code>{"tool_name":"search","arguments":{"q":"x"}`,
		[]got{fixed("search", `{"q":"x"}`)},
	},
	{
		"unterminated tag, complete json", `Sure. <tool_code>{"tool_name":"search","arguments":{"q":"x"}}`,
		[]got{txt("Sure. "), call("search", `{"q":"x"}`)},
	},
	{
		"unterminated tag, partial close", `<tool_code>{"tool_name":"search","arguments":{}}</tool_c`,
		[]got{call("search", `{}`)},
	},
	{
		"string arguments repaired", `<tool_code>{"tool_name":"search","arguments":"{'q': 'x',}"}</tool_code>`,
		[]got{fixed("search", `{"q":"x"}`)},
	},

	// Terminators inside JSON strings do not end the block.
	{
		"close tag inside a string", `<tool_code>{"tool_name":"files__write_file","arguments":{"text":"a </tool_code> b \"q\""}}</tool_code> done`,
		[]got{call("files__write_file", `{"text":"a </tool_code> b \"q\""}`), txt(" done")},
	},
	{
		"fence inside a string", "```json\n{\"name\":\"files__write_file\",\"arguments\":{\"text\":\"```go\\nx\\n```\"}}\n```\nok",
		[]got{call("files__write_file", "{\"text\":\"```go\\nx\\n```\"}"), txt("\nok")},
	},
	{
		"unbalanced quote in a broken block", `<tool_code>{"tool_name": "search, "arguments": {}}</tool_code> after`,
		[]got{bad("", `{}`, `the tool call could not be read: expected ',' or '}', found 'a' at offset 24; write exactly <tool_code>{"tool_name": "NAME", "arguments": {...}}</tool_code>`), txt(" after")},
	},

	// Calls the agent reports back to the model.
	{
		"unknown tool in tag", `<tool_code>{"tool_name":"delete_all","arguments":{}}</tool_code>`,
		[]got{bad("delete_all", `{}`, `no tool named "delete_all"`+unknownSuffix)},
	},
	{
		"malformed tag", `<tool_code>search for x</tool_code>`,
		[]got{bad("", `{}`, `the tool call could not be read: unexpected word "search" at offset 0; write exactly <tool_code>{"tool_name": "NAME", "arguments": {...}}</tool_code>`)},
	},
	{
		"empty tag", `<tool_code> </tool_code>`,
		[]got{bad("", `{}`, `the tool call could not be read: the block is empty; write exactly <tool_code>{"tool_name": "NAME", "arguments": {...}}</tool_code>`)},
	},
	{
		"tag without name", `<tool_code>{"arguments":{}}</tool_code>`,
		[]got{bad("", `{}`, `the tool call could not be read: no tool name: expected "tool_name"; write exactly <tool_code>{"tool_name": "NAME", "arguments": {...}}</tool_code>`)},
	},
	{
		"arguments not an object", `<tool_code>{"tool_name":"search","arguments":[1]}</tool_code>`,
		[]got{bad("", `{}`, `the tool call could not be read: arguments must be a JSON object; write exactly <tool_code>{"tool_name": "NAME", "arguments": {...}}</tool_code>`)},
	},

	// Fenced JSON.
	{
		"json fence", "I'll search.\n```json\n{\"name\": \"search\", \"arguments\": {\"q\": \"x\"}}\n```\n",
		[]got{txt("I'll search.\n"), call("search", `{"q":"x"}`), txt("\n")},
	},
	{
		"plain fence", "```\n{\"tool\": \"search\", \"args\": {}}\n```",
		[]got{call("search", `{}`)},
	},
	{
		"tool_code fence", "```tool_code\n{\"tool_name\": \"search\", \"arguments\": {}}\n```",
		[]got{call("search", `{}`)},
	},
	{
		"fence with two calls", "```json\n[{\"name\":\"search\",\"arguments\":{}},{\"name\":\"read_file\",\"arguments\":{}}]\n```",
		[]got{call("search", `{}`), call("read_file", `{}`)},
	},
	{
		"unterminated json fence", "```json\n{\"name\":\"search\",\"arguments\":{}}\n",
		[]got{call("search", `{}`)},
	},
	{
		"unterminated json fence, half backticks", "```json\n{\"name\":\"search\",\"arguments\":{}}\n``",
		[]got{call("search", `{}`)},
	},

	// Bare JSON.
	{
		"bare call", `{"name": "get_weather", "arguments": {"city": "Paris"}}`,
		[]got{call("get_weather", `{"city":"Paris"}`)},
	},
	{
		"bare call in prose", `Calling {"tool_name":"search","arguments":{"q":"x"}} now`,
		[]got{txt("Calling "), call("search", `{"q":"x"}`), txt(" now")},
	},
	{
		"bare call missing brace at end", `{"name":"search","arguments":{"q":"x"}`,
		[]got{fixed("search", `{"q":"x"}`)},
	},
	{
		"bare openai shape", `{"id":"c1","type":"function","function":{"name":"search","arguments":{"q":"x"}}}`,
		[]got{call("search", `{"q":"x"}`)},
	},

	// Near misses that must stay text.
	{
		"unknown tool in fence", "```json\n{\"name\": \"my_func\", \"arguments\": {}}\n```",
		[]got{txt("```json\n{\"name\": \"my_func\", \"arguments\": {}}\n```")},
	},
	{
		"unknown tool bare", `Example: {"name": "my_func", "arguments": {}}`,
		[]got{txt(`Example: {"name": "my_func", "arguments": {}}`)},
	},
	{
		"json shown to user", "Your config:\n```json\n{\"name\": \"search\", \"version\": 2}\n```",
		[]got{txt("Your config:\n```json\n{\"name\": \"search\", \"version\": 2}\n```")},
	},
	{
		"bare json without arguments", `The record is {"name": "search", "id": 7}.`,
		[]got{txt(`The record is {"name": "search", "id": 7}.`)},
	},
	{
		"bare json with extra key", `{"name": "search", "arguments": {}, "score": 0.5}`,
		[]got{txt(`{"name": "search", "arguments": {}, "score": 0.5}`)},
	},
	{
		"call nested in other json", `{"result": {"name": "search", "arguments": {}}}`,
		[]got{txt(`{"result": {"name": "search", "arguments": {}}}`)},
	},
	{
		"go code fence", "```go\nfunc f() { x := map[string]any{\"name\": \"search\", \"arguments\": nil} }\n```\nok",
		[]got{txt("```go\nfunc f() { x := map[string]any{\"name\": \"search\", \"arguments\": nil} }\n```\nok")},
	},
	{
		"bare call in go fence", "```python\nprint({\"name\": \"search\", \"arguments\": {}})\n```",
		[]got{txt("```python\nprint({\"name\": \"search\", \"arguments\": {}})\n```")},
	},
	{"braces in prose", "Use {curly} braces and {\"a\": 1} and { }.", []got{txt("Use {curly} braces and {\"a\": 1} and { }.")}},
	{"html", "<b>bold</b> and <tool> and a < b", []got{txt("<b>bold</b> and <tool> and a < b")}},
	{"tag name inside text", "write <tool_cod to", []got{txt("write <tool_cod to")}},
	{"partial tag at end", "see <tool_co", []got{txt("see <tool_co")}},
	{
		"unterminated tag with bad json", "<tool_code>{\"tool_name\": \"search\", \"argu",
		[]got{txt("<tool_code>{\"tool_name\": \"search\", \"argu")},
	},
	{
		"unterminated tag, unknown tool", `<tool_code>{"tool_name":"nope","arguments":{}}`,
		[]got{txt(`<tool_code>{"tool_name":"nope","arguments":{}}`)},
	},
	{"inline triple backticks", "run ```ls``` now", []got{txt("run ```ls``` now")}},
	{"backticks at end", "code ``", []got{txt("code ``")}},
	{"open brace at end", "a {", []got{txt("a {")}},
	{"unquoted value is not repaired", `{name: search, arguments: {}}`, []got{txt(`{name: search, arguments: {}}`)}},
	{"bare unterminated string", `{"name":"search","arguments":{"q":"x`, []got{txt(`{"name":"search","arguments":{"q":"x`)}},
	{
		"tag inside opaque fence is a call", "```xml\n<tool_code>{\"tool_name\":\"search\",\"arguments\":{}}</tool_code>\n```",
		[]got{txt("```xml\n"), call("search", `{}`), txt("\n```")},
	},
	{
		"unicode around", "héllo → <tool_code>{\"tool_name\":\"search\",\"arguments\":{\"q\":\"日本\"}}</tool_code> ✓",
		[]got{txt("héllo → "), call("search", `{"q":"日本"}`), txt(" ✓")},
	},
}

func TestParse(t *testing.T) {
	p := NewParser(testNames)
	for _, tc := range parseCases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, view(p.Parse(tc.in))); diff != "" {
				t.Errorf("Parse(%q) mismatch (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}

func TestParseKeepsRaw(t *testing.T) {
	p := NewParser(testNames)
	in := "a <tool_code>{'tool_name':'search','arguments':{}}</tool_code> b"
	parts := p.Parse(in)
	if len(parts) != 3 || parts[1].Call == nil {
		t.Fatalf("Parse(%q) = %+v, want text, call, text", in, parts)
	}
	if want := "<tool_code>{'tool_name':'search','arguments':{}}</tool_code>"; parts[1].Call.Raw != want {
		t.Errorf("Raw = %q, want %q", parts[1].Call.Raw, want)
	}
}

func TestUnknownToolErrorListsNames(t *testing.T) {
	var names []string
	for i := range 40 {
		names = append(names, "t"+strings.Repeat("x", i%3)+string(rune('a'+i%26)))
	}
	err := &UnknownToolError{Name: "zz", Available: names}
	if !strings.HasSuffix(err.Error(), "and 10 more") {
		t.Errorf("Error() = %q, want the list cut with a count", err.Error())
	}
}
