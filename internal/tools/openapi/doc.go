// Package openapi turns OpenAPI action servers into tools. An action server is
// a base URL; its OpenAPI 3.0 or 3.1 document (found at a well-known path or
// given explicitly, JSON or YAML) is read once by [Server.Load], and every
// operation in it becomes a [tools.Tool] that calls the server over HTTP.
//
// The document model is hand-written and deliberately partial: the package
// walks the decoded JSON tree for the few things a tool needs (operations,
// parameters, JSON request bodies, schemas and local $refs) and copies every
// other schema keyword through. A full OpenAPI library would bring a large
// dependency, validate far more than we use, and reject real-world documents
// that are slightly wrong yet perfectly callable.
//
// Layer: adapter. It imports internal/tools and the standard library (plus a
// YAML decoder); only internal/app (and tests) import it.
package openapi
