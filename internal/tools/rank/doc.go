// Package rank is the tool retriever: it finds, among the tools of a large
// catalogue, the few that a request needs, with no network and no model
// call, in well under a millisecond for 500 tools.
//
// An [Index] is built once per catalogue ([New], from [Doc] values; see
// [DocOf] for a [tools.Entry]). [Index.Rank] orders every tool for a
// [Query]: the request, earlier turns of the conversation and the tools
// already used in it. [Index.Search] serves a model that looks for tools
// itself (find_tools). Every [Scored] result carries the parts of its
// score, and [Index.Explain] says which words and concepts of the request
// matched which field of a tool, so a user can see why a tool was or was
// not offered.
//
// How it ranks:
//
//   - BM25F over the fields of each tool (its own name split into words,
//     its server's name, description, parameter names, parameter
//     descriptions and enum values, its server's instructions and its
//     annotations), each field weighted and length-normalised on its own.
//   - Words are stemmed (Porter2) and, beside the words themselves, the
//     request and the tools are mapped onto the concepts of a built-in
//     lexicon of general English (lexicon.txt): "kill the lights" meets
//     "switch off a light" through the concepts off and light.
//   - Values in a request (e-mail addresses, flight numbers, amounts,
//     ticket keys, file names...) are recognised by pattern and stand for
//     their concept: "Is LH 455 on time?" asks about a flight.
//   - A server stage scores each server as a whole, so a request that
//     clearly belongs to one server lifts all of its tools.
//   - Earlier turns count less than the request, older ones less still;
//     tools already used, and their servers, get a boost.
//
// Off the common path, where the configured provider has an embeddings
// endpoint, [EmbedCatalogue] makes an embedding index of the catalogue
// (cached in a directory, re-embedding only the tools whose text changed);
// given to [New] in [Options].Embeddings, it adds the similarity of a
// tool's vector to the request's [Query].Vector to the lexical score.
//
// Layer: contract, beside tools. It imports only tools and the standard
// library, so the agent, the CLI and the text protocol (llm/textcall) can
// all use it.
package rank
