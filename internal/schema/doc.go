// Package schema converts a tool's JSON Schema into what each model
// provider accepts as a tool's parameters.
//
// Every provider ([OpenAI], [Anthropic], [Ollama], [Gemini]) needs an object
// schema at the top, with properties and without "$schema". A schema that
// lacks "type" gets "type":"object"; {} and true become an empty object; a
// top-level allOf is merged, and a top-level anyOf or oneOf (which
// Anthropic refuses) becomes one object with the properties of every
// alternative, the description saying which sets go together. A top-level
// schema of another type is replaced by an empty object, since tool
// arguments are always an object. Everything else passes unchanged to
// OpenAI, Anthropic and Ollama, in its original key order.
//
// Gemini accepts only a subset of OpenAPI 3.0 Schema objects: type,
// format, title, description, nullable, enum, minItems, maxItems,
// properties, required, minProperties, maxProperties, minLength,
// maxLength, pattern, example, anyOf, propertyOrdering, default, items,
// minimum, maximum. For Gemini the converter also:
//   - inlines local "$ref"s ("#", "#/$defs/x", "#/definitions/x", any JSON
//     Pointer); a reference met inside its own expansion is expanded twice,
//     then cut with a note in the description; references it cannot resolve
//     are noted in the description;
//   - merges allOf, and turns oneOf into anyOf; a null alternative becomes
//     nullable, a single remaining alternative is merged into its parent;
//   - turns type lists into one type plus nullable, or into anyOf with the
//     keywords of each type;
//   - turns a string const into a one-value enum, gives string enums
//     "format":"enum", and replaces enums (and consts) of other values by
//     a note "Allowed values: 1, 2, 3." with the type kept, so the model
//     still sends numbers that the tool's own schema accepts;
//   - keeps only the formats Gemini documents (date-time and enum for
//     strings, int32 and int64 for integers, float and double for numbers)
//     and notes the others ("Format: email.");
//   - keeps the first of "examples" as "example", and only required names
//     that are properties; adds propertyOrdering with the original order;
//   - notes in the description what constrains values but cannot be sent
//     (exclusive bounds, multipleOf, uniqueItems, additionalProperties of a
//     map), and drops annotations ($id, $comment, readOnly...) quietly;
//   - gives arrays without items string items, since Gemini rejects them.
//
// Every change is listed by [Convert] for logs. The rule is that nothing a
// provider could accept is dropped, and what must go is folded into the
// description when the model would act differently without it.
//
// Layer: leaf. It imports only the standard library; tools consumers and
// the llm provider adapters import it.
package schema
