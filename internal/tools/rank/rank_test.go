package rank

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// smallCatalogue is a few tools of several servers, with overlapping words.
func smallCatalogue() []Doc {
	schema := func(props string) json.RawMessage {
		return json.RawMessage(`{"type":"object","properties":{` + props + `}}`)
	}
	return []Doc{
		{Name: "home__turn_off", Server: "home", Tool: "turn_off", Description: "Switch off a light, plug or switch.", InputSchema: schema(`"device":{"type":"string"}`)},
		{Name: "home__turn_on", Server: "home", Tool: "turn_on", Description: "Switch on a light, plug or switch.", InputSchema: schema(`"device":{"type":"string"}`)},
		{Name: "mail__send_email", Server: "mail", Tool: "send_email", Description: "Compose and send an e-mail.", InputSchema: schema(`"to":{"type":"string"},"subject":{"type":"string"},"body":{"type":"string"}`)},
		{Name: "mail__search_email", Server: "mail", Tool: "search_email", Description: "Search the mailbox.", InputSchema: schema(`"query":{"type":"string"}`)},
		{Name: "travel__get_flight_status", Server: "travel", Tool: "get_flight_status", Description: "Live status of a flight: delay, gate, terminal.", InputSchema: schema(`"flight_number":{"type":"string"}`)},
		{Name: "travel__search_hotels", Server: "travel", Tool: "search_hotels", Description: "Hotels in a city for dates.", InputSchema: schema(`"city":{"type":"string"}`)},
		{Name: "weather__get_forecast", Server: "weather", Tool: "get_forecast", Description: "Forecast for the coming days.", InputSchema: schema(`"location":{"type":"string"}`)},
		{Name: "read_file", Tool: "read_file", Description: "Read a file.", InputSchema: json.RawMessage(`not json`)},
	}
}

func first(t *testing.T, ix *Index, q Query) string {
	t.Helper()
	return ix.Rank(q)[0].Name
}

func TestRankUnderstandsRequests(t *testing.T) {
	ix := New(smallCatalogue(), nil)
	tests := []struct {
		name string
		q    Query
		want string
	}{
		{"concept and gap phrase", Query{Text: "Turn the lamp in the hall off"}, "home__turn_off"},
		{"concept", Query{Text: "kill the lights"}, "home__turn_off"},
		{"entity: flight number", Query{Text: "Is LH 455 on time?"}, "travel__get_flight_status"},
		{"entity: e-mail address", Query{Text: "the Q3 numbers to finance@acme.com"}, "mail__send_email"},
		{"named outright", Query{Text: "use search_email for this"}, "mail__search_email"},
		{"context carries the topic", Query{Text: "and for Friday?", Context: []string{"will it rain in Oslo tomorrow"}}, "weather__get_forecast"},
		{"a used tool comes back", Query{Text: "same again for Bob", Used: []string{"mail__send_email"}}, "mail__send_email"},
		{"broken schema still ranks", Query{Text: "read that file"}, "read_file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := first(t, ix, tc.q); got != tc.want {
				t.Errorf("first = %s, want %s; ranking %v", got, tc.want, ix.Rank(tc.q)[:3])
			}
		})
	}
}

func TestRankContextCountsLessThanRequest(t *testing.T) {
	ix := New(smallCatalogue(), nil)
	// The request is about hotels; an older turn was about e-mail.
	q := Query{Text: "find me a hotel in Rome", Context: []string{"send an email to Ann"}}
	if got := first(t, ix, q); got != "travel__search_hotels" {
		t.Errorf("first = %s, want the request's tool over the context's", got)
	}
}

func TestRankQuotedWordsCountLess(t *testing.T) {
	ix := New(smallCatalogue(), nil)
	plain := ix.Rank(Query{Text: "hotels"})[0]
	quoted := ix.Rank(Query{Text: `"hotels"`})[0]
	if plain.Name != quoted.Name || quoted.Score >= plain.Score {
		t.Errorf("a quoted word should count less: plain %+v, quoted %+v", plain, quoted)
	}
}

func TestRankDeterministicAndComplete(t *testing.T) {
	docs := DocsOf(LoadCatalogue(t))
	ix := New(docs, nil)
	q := Query{Text: "Send Alex $25 for the pizza", Context: []string{"hi"}, Used: []string{"chat__post_message"}}
	a, b := ix.Rank(q), New(docs, nil).Rank(q)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("two rankings differ (-first +second):\n%s", diff)
	}
	seen := make(map[int]bool)
	for _, s := range a {
		seen[s.Index] = true
		if docs[s.Index].Name != s.Name {
			t.Fatalf("index %d names %s, doc is %s", s.Index, s.Name, docs[s.Index].Name)
		}
	}
	if len(seen) != len(docs) {
		t.Errorf("ranking holds %d distinct tools, catalogue %d", len(seen), len(docs))
	}
}

func TestRankOddInput(t *testing.T) {
	ix := New(smallCatalogue(), nil)
	for _, text := range []string{
		"", "   ", "?!", "日本語のテキスト", "🎉🎉", strings.Repeat("turn off the lights ", 5000),
		strings.Repeat("\"", 1001), "'", "x'y'z", "\xff\xfe",
	} {
		if got := len(ix.Rank(Query{Text: text, Context: []string{text}, Used: []string{text}})); got != ix.Len() {
			t.Errorf("Rank(%.20q) returned %d tools, want %d", text, got, ix.Len())
		}
	}
	empty := New(nil, nil)
	if got := empty.Rank(Query{Text: "anything"}); len(got) != 0 {
		t.Errorf("an empty catalogue ranks %v", got)
	}
	if got := empty.Search(Query{Text: "anything"}, 5); len(got) != 0 {
		t.Errorf("an empty catalogue finds %v", got)
	}
}

func TestSearch(t *testing.T) {
	ix := New(smallCatalogue(), nil)
	got := ix.Search(Query{Text: "switch the light off"}, 2)
	if len(got) != 2 || got[0].Name != "home__turn_off" {
		t.Errorf("Search = %+v, want 2 results, home__turn_off first", got)
	}
	if got := ix.Search(Query{Text: "zzzz qqqq"}, 5); len(got) != 0 {
		t.Errorf("a search that matches nothing found %+v", got)
	}
	if got := ix.Search(Query{Text: "light"}, 0); len(got) != 0 {
		t.Errorf("k = 0 found %+v", got)
	}
}

func TestInstructionsAndAnnotations(t *testing.T) {
	docs := []Doc{
		{Name: "a__query", Server: "a", Tool: "query", Description: "Run a query."},
		{Name: "b__query", Server: "b", Tool: "query", Description: "Run a query."},
		{Name: "c__drop", Server: "c", Tool: "drop", Description: "Drop it.", Annotations: &tools.Annotations{ReadOnlyHint: true}},
	}
	ix := New(docs, &Options{Instructions: map[string]string{"b": "Tools for the warehouse inventory database."}})
	if got := first(t, ix, Query{Text: "query the inventory"}); got != "b__query" {
		t.Errorf("first = %s, want the tool whose server's instructions match", got)
	}
	if got := first(t, ix, Query{Text: "something read only"}); got != "c__drop" {
		t.Errorf("first = %s, want the read-only tool", got)
	}
}

func TestDocOf(t *testing.T) {
	e := tools.Entry{
		Name:   "git__repo_status_06342f11",
		Origin: tools.Origin{Kind: tools.KindMCP, Server: "git", Name: "repo.status"},
		Info:   tools.Info{Name: "repo.status", Description: "Status.", Annotations: &tools.Annotations{Title: "Repository status"}},
	}
	want := Doc{Name: e.Name, Server: "git", Tool: "repo.status", Title: "Repository status", Description: "Status.", Annotations: e.Info.Annotations}
	if diff := cmp.Diff(want, DocOf(e)); diff != "" {
		t.Errorf("DocOf mismatch (-want +got):\n%s", diff)
	}
	for name, want := range map[string][2]string{
		"mail__send_email": {"mail", "send_email"}, "read_file": {"", "read_file"},
		"__x": {"", "__x"}, "a__b__c": {"a", "b__c"},
	} {
		s, tl := SplitName(name)
		if [2]string{s, tl} != want {
			t.Errorf("SplitName(%q) = %q, %q; want %q", name, s, tl, want)
		}
	}
}

func TestFindEntities(t *testing.T) {
	tests := []struct {
		text     string
		want     []string
		wantRest string // a word that must remain, "" for none
	}{
		{"Send it to ann@example.org", []string{"email address"}, "send"},
		{"Is LH 455 on time?", []string{"flight number"}, "time"},
		{"Is PR 2210 mergeable?", nil, "mergeable"},
		{"WEB-500 blocks API-212", []string{"ticket key"}, "blocks"},
		{"Dump it to /tmp/invoices.csv", []string{"file name"}, "csv"},
		{"Send Alex $25", []string{"money"}, "alex"},
		{"Turn it up to 70%", []string{"percent"}, ""},
		{"make it 22 degrees", []string{"temperature"}, ""},
		{"post in #release-train", []string{"channel"}, "post"},
		{"close #77 in acme/infra", []string{"repository name", "number reference"}, "close"},
		{"approve acme/webshop#412", []string{"repository reference"}, "approve"},
		{"Put a :tada: on it", []string{"emoji"}, ""},
		{"open port 5432 to 10.0.0.0/16", []string{"ip address"}, "port"},
		{"two t3.large machines in us-east-1", []string{"instance type", "region"}, "machines"},
		{"Use the code SPRING10", []string{"promo code"}, "code"},
		{"read https://example.com/a?b=c", []string{"url"}, "read"},
		{"at 6pm or 14:05", []string{"time of day"}, ""},
		{"What is in B2:D10?", []string{"cell range"}, ""},
		{"What street is at 48.8584, 2.2945?", []string{"coordinates point"}, "street"},
		{"Her new number is 555-0199", []string{"phone number"}, "number"},
		{"call +44 20 7946 0958", []string{"phone number"}, "call"},
		{"Pull up reservation KX3P9L", []string{"booking reference"}, "reservation"},
		{"Make shop.example.com point at the balancer", []string{"domain name"}, "point"},
		{"Clone facebook/react into our org", []string{"repository name"}, "clone"},
		{"tea and/or coffee", nil, "coffee"},
		{"Show me request a1b2c3d4 end to end", []string{"hex identifier"}, "request"},
		{"Is LH455 on time and where is ABCDE?", []string{"flight number"}, "time"},
	}
	for _, tc := range tests {
		rest, got := findEntities(tc.text)
		if !slices.Equal(got, tc.want) {
			t.Errorf("findEntities(%q) = %q, want %q", tc.text, got, tc.want)
		}
		if tc.wantRest != "" && !strings.Contains(strings.ToLower(rest), tc.wantRest) {
			t.Errorf("findEntities(%q) left %q, which lost %q", tc.text, rest, tc.wantRest)
		}
	}
}

func TestLexicon(t *testing.T) {
	lx := builtinLexicon()
	for _, e := range entities {
		if _, ok := lx.label(e.label); !ok {
			t.Errorf("entity %q has no concept in the lexicon", e.label)
		}
	}
	for _, bad := range []string{"no colon here", ": members without label", "a: one two three four five six", "a: x\na: y", "a: * off", "a: turn * * off"} {
		if _, err := parseLexicon(bad); err == nil {
			t.Errorf("parseLexicon(%q) succeeded, want an error", bad)
		}
	}
	lx, err := parseLexicon("off: turn * off, kill\n# comment\n\nlight: lamp, light")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, sp := range lx.spans(splitWords("Turn the big lamp off, then kill it")) {
		for _, id := range sp.concepts {
			got = append(got, sp.key+"="+lx.labels[id])
		}
	}
	want := []string{"turn * off=off", "lamp=light", "kill=off"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("spans mismatch (-want +got):\n%s", diff)
	}
}

func TestSplitWords(t *testing.T) {
	var got []string
	for _, w := range splitWords(`readFile, read_file; Searching FILES the VMs 42 t3 "Road Trip" 'refunded' Lena's`) {
		s := w.stem
		if w.stop {
			s += "/stop"
		}
		if w.weight < 1 {
			s += "/quoted"
		}
		got = append(got, s)
	}
	want := []string{"read", "file", "read", "file", "search", "file", "the/stop", "vm", "t3", "road/quoted", "trip/quoted", "refund/quoted", "lena", "s/stop"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("splitWords mismatch (-want +got):\n%s", diff)
	}
}

func TestEmphasize(t *testing.T) {
	ix := New(nil, nil)
	weights := func(text string) map[string]float64 {
		ws := splitWords(text)
		ix.emphasize(ws)
		out := make(map[string]float64)
		for _, w := range ws {
			if !w.stop {
				out[w.stem] = w.weight
			}
		}
		return out
	}
	got := weights("DM Paolo that the build is green")
	if got["dm"] != 1 || got["paolo"] != 1 || got["build"] != 0.5 || got["green"] != 0.5 {
		t.Errorf("reported speech: weights %v", got)
	}
	got = weights("Answer Jen's email saying Tuesday works")
	if got["answer"] != 1 || got["tuesday"] != 0.5 {
		t.Errorf("after saying: weights %v", got)
	}
	got = weights("Save that file for later")
	if got["file"] != 1 {
		t.Errorf("\"that\" as a determiner right after the verb changed weights: %v", got)
	}
}
