// Package openapi turns OpenAPI action servers into tools. An action server is
// a base URL; its OpenAPI 3.0 or 3.1 document (JSON or YAML) is read by
// [Server.Load], and every operation in it becomes a [tools.Tool] that calls
// the server over HTTP.
//
// The rules, in one place:
//
//   - Discovery: without an explicit Options.Spec (URL or file), the document
//     is looked for under Options.URL at /openapi.json, /, /api/openapi.json
//     and /docs/openapi.json, in that order; the first answer that parses as
//     OpenAPI 3.x wins, and a failure lists every URL tried and why.
//   - Names: a tool is named by its operationId, or method_path made of
//     letters, digits and underscores ("get_users_id"); duplicates get _2,
//     _3. The registry adds the server prefix. Options.Allow and Deny filter
//     these names with path.Match globs; Deny wins.
//   - Input schema: path, query, header and cookie parameters are top-level
//     properties; a JSON body's properties are flattened next to them, or
//     the whole body is nested under "body" (see body.go). Every $ref is
//     inlined, recursion is cut with a note, allOf is folded, oneOf/anyOf
//     are kept, 3.0's nullable becomes a 3.1 type array.
//   - Annotations: GET and HEAD are read-only; everything else is
//     destructive unless the operation says x-switchboard-readonly: true.
//   - Calls: a non-2xx answer, a network failure or a timeout is a tool error
//     the model sees (with the status and the start of the body); only the
//     caller's context ending, or an operation gone from the document, is a
//     Go error. JSON answers are compacted and, when objects, also returned
//     as structured content.
//   - Refresh: [Server.Refresh] re-reads now; with Options.TTL the next use
//     after that age re-reads (there is no background goroutine). A server
//     whose document cannot be read is failed: no tools, the reason in
//     [Server.Status]; other servers are unaffected. Options.OnChange tells
//     the app to hand the new [Server.Tools] to its registry.
//
// The document model is hand-written and deliberately partial: the package
// walks the decoded JSON tree for the few things a tool needs and copies
// every other schema keyword through. A full OpenAPI library would bring a
// large dependency, validate far more than we use, and reject real-world
// documents that are slightly wrong yet perfectly callable.
//
// Subpackage emailserver is an example action server for tests.
//
// Layer: adapter. It imports internal/tools, the standard library and a YAML
// decoder; only internal/app (and tests) import it.
package openapi
