package textcall

import "strings"

// markerKind says what a special marker at the start of the buffer does.
type markerKind int

const (
	// kindClosed opens a block read up to its closing marker by a body
	// reader.
	kindClosed markerKind = iota + 1
	// kindThinkOpen starts the model's reasoning, ended by close.
	kindThinkOpen
	// kindThinkClose ends reasoning that was never opened in the reply
	// (the chat template opened it in the prompt).
	kindThinkClose
	// kindDrop is a control token with no meaning for the reader
	// (end of turn, a stray end of a call).
	kindDrop
	// kindPythonTag is Llama 3.1's <|python_tag|>, followed by JSON.
	kindPythonTag
	// kindHarmony starts a gpt-oss harmony header.
	kindHarmony
)

// bodyKind names the reader of a closed block's content.
type bodyKind int

const (
	bodyGeneric  bodyKind = iota // JSON, XML-style, pythonic or a bare name
	bodyDeepSeek                 // <｜tool▁call▁begin｜>...<｜tool▁call▁end｜>
	bodyKimi                     // <|tool_call_begin|>functions.x:0<|tool_call_argument_begin|>{...}
	bodyGemma                    // call:name{key:<|"|>v<|"|>}
)

// marker is one row of the family table. Each family that wraps its calls
// in special tokens is a row: its opening marker, how the block ends, and
// which reader reads what is between. Families written without markers
// (pythonic lists, Mistral, Functionary >>>, bare JSON) have their own
// scanners in the stream.
type marker struct {
	open  string
	kind  markerKind
	close string
	body  bodyKind
	// keepOpen passes the opening marker to the reader, for blocks whose
	// opener carries the tool name (<function=name>).
	keepOpen bool
	// family names the model family, for the docs and the corpus.
	family string
}

// markers is the family table. Matching ignores ASCII case; the first
// row that matches wins, so longer openers sharing a prefix come first.
var markers = [...]marker{
	{open: "<think>", kind: kindThinkOpen, close: "</think>", family: "DeepSeek R1, Qwen3, GLM, Kimi reasoning"},
	{open: "<thinking>", kind: kindThinkOpen, close: "</thinking>", family: "reasoning"},
	{open: "<seed:think>", kind: kindThinkOpen, close: "</seed:think>", family: "Seed-OSS reasoning"},
	{open: "<|START_THINKING|>", kind: kindThinkOpen, close: "<|END_THINKING|>", family: "Command-R7B reasoning"},
	{open: "<|channel>thought", kind: kindThinkOpen, close: "<channel|>", family: "Gemma 4 reasoning"},
	{open: "</think>", kind: kindThinkClose},
	{open: "</thinking>", kind: kindThinkClose},
	{open: "</seed:think>", kind: kindThinkClose},
	{open: "<|END_THINKING|>", kind: kindThinkClose},
	{open: "<function_call>", kind: kindClosed, close: "</function_call>", family: "Hermes variant"},
	{open: "<function_calls>", kind: kindClosed, close: "</function_calls>", family: "Olmo 3"},
	{open: "<function=", kind: kindClosed, close: "</function>", keepOpen: true, family: "Functionary v3.1, Qwen3-Coder without wrapper"},
	{open: "<function name=", kind: kindClosed, close: "</function>", keepOpen: true, family: "Hermes variant"},
	{open: "<invoke name=", kind: kindClosed, close: "</invoke>", keepOpen: true, family: "MiniMax-M2 without wrapper"},
	{open: "<seed:tool_call>", kind: kindClosed, close: "</seed:tool_call>", family: "Seed-OSS"},
	{open: "<minimax:tool_call>", kind: kindClosed, close: "</minimax:tool_call>", family: "MiniMax-M2"},
	{open: "<|tool_call_start|>", kind: kindClosed, close: "<|tool_call_end|>", family: "LFM2"},
	{open: "<|tool_calls_section_begin|>", kind: kindClosed, close: "<|tool_calls_section_end|>", body: bodyKimi, family: "Kimi K2"},
	{open: "<|tool_call_begin|>", kind: kindClosed, close: "<|tool_call_end|>", body: bodyKimi, keepOpen: true, family: "Kimi K2 single call"},
	{open: "<|START_ACTION|>", kind: kindClosed, close: "<|END_ACTION|>", family: "Command-R7B"},
	{open: "<|tool_call>", kind: kindClosed, close: "<tool_call|>", body: bodyGemma, family: "Gemma 4"},
	{open: "<start_function_call>", kind: kindClosed, close: "<end_function_call>", body: bodyGemma, family: "FunctionGemma"},
	{open: "<｜tool▁calls▁begin｜>", kind: kindClosed, close: "<｜tool▁calls▁end｜>", body: bodyDeepSeek, family: "DeepSeek R1/V3/V3.1"},
	{open: "<｜tool_calls_begin｜>", kind: kindClosed, close: "<｜tool_calls_end｜>", body: bodyDeepSeek, family: "DeepSeek R1, underscores"},
	{open: "<｜tool calls begin｜>", kind: kindClosed, close: "<｜tool calls end｜>", body: bodyDeepSeek, family: "DeepSeek R1, spaces"},
	{open: "<|tool▁calls▁begin|>", kind: kindClosed, close: "<|tool▁calls▁end|>", body: bodyDeepSeek, family: "DeepSeek R1, ASCII bars"},
	{open: "<｜tool▁call▁begin｜>", kind: kindClosed, close: "<｜tool▁call▁end｜>", body: bodyDeepSeek, keepOpen: true, family: "DeepSeek single call"},
	{open: "<｜DSML｜function_calls>", kind: kindClosed, close: "</｜DSML｜function_calls>", family: "DeepSeek V3.2 DSML"},
	{open: "<|python_tag|>", kind: kindPythonTag, family: "Llama 3.1"},
	{open: "<|tools_prefix|>", kind: kindClosed, close: "<|tools_suffix|>", family: "Apertus"},
	{open: "<TOOLCALL>", kind: kindClosed, close: "</TOOLCALL>", family: "Nemotron Nano v2"},
	{open: "<|python_start|>", kind: kindClosed, close: "<|python_end|>", family: "Llama 4"},
	{open: "<tool_calls>", kind: kindClosed, close: "</tool_calls>", family: "tool_calls wrapper"},
	{open: "<|start|>", kind: kindHarmony, family: "gpt-oss harmony"},
	{open: "<|channel|>", kind: kindHarmony, family: "gpt-oss harmony"},
	{open: "<|end|>", kind: kindDrop},
	{open: "<|call|>", kind: kindDrop},
	{open: "<|return|>", kind: kindDrop},
	{open: "<|constrain|>", kind: kindDrop},
	{open: "<|START_RESPONSE|>", kind: kindDrop},
	{open: "<|END_RESPONSE|>", kind: kindDrop},
	{open: "<|eom_id|>", kind: kindDrop},
	{open: "</s>", kind: kindDrop},
	{open: "<|python_end|>", kind: kindDrop},
	{open: "<|tool_call_end|>", kind: kindDrop},
	{open: "<|eot_id|>", kind: kindDrop},
	{open: "<|im_end|>", kind: kindDrop},
	{open: "<｜end▁of▁sentence｜>", kind: kindDrop},
	{open: "<|tool_calls_section_end|>", kind: kindDrop},
	{open: "<｜tool▁calls▁end｜>", kind: kindDrop},
}

// matchMarker returns the row whose opener buf starts with, or nil and
// whether buf is a proper prefix of some opener (more text may match).
func matchMarker(buf string) (*marker, bool) {
	partial := false
	for i := range markers {
		m := &markers[i]
		if len(buf) >= len(m.open) {
			if strings.EqualFold(buf[:len(m.open)], m.open) {
				return m, false
			}
		} else if strings.EqualFold(buf, m.open[:len(buf)]) {
			partial = true
		}
	}
	return nil, partial
}

// partialSuffix returns the length of the longest suffix of s that is a
// proper prefix of marker: text that must be held back because the next
// piece may complete the marker.
func partialSuffix(s, marker string) int {
	for k := min(len(s), len(marker)-1); k > 0; k-- {
		if strings.HasPrefix(marker, s[len(s)-k:]) {
			return k
		}
	}
	return 0
}
