package openapi

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRequests checks the exact HTTP request each call builds.
func TestRequests(t *testing.T) {
	tests := []struct {
		spec, tool, args string
		want             seen
	}{
		{
			spec: "petstore30.json", tool: "listPets",
			args: `{"limit": 5, "tags": ["a", "b c"], "status": "sold", "ids": [1, 2]}`,
			want: seen{Method: "GET", URI: "/v1/pets?limit=5&tags=a&tags=b+c&status=sold&ids=1,2"},
		},
		{
			spec: "petstore30.json", tool: "listPets", args: `{"limit": null}`,
			want: seen{Method: "GET", URI: "/v1/pets"},
		},
		{
			spec: "petstore30.json", tool: "getPet", args: `{"petId": 42}`,
			want: seen{Method: "GET", URI: "/v1/pets/42"},
		},
		{
			spec: "petstore30.json", tool: "getPet", args: `{"petId": "a/b c?d"}`,
			want: seen{Method: "GET", URI: "/v1/pets/a%2Fb%20c%3Fd"},
		},
		{
			spec: "petstore30.json", tool: "deletePet", args: `{"petId": 1, "X-Request-Id": "abc-1"}`,
			want: seen{Method: "DELETE", URI: "/v1/pets/1", Headers: map[string]string{"X-Request-Id": "abc-1"}},
		},
		{
			spec: "petstore30.json", tool: "createPet", args: `{"name": "Rex", "tag": null, "owner": {"name": "Ann"}, "extra": 12345678901234567890}`,
			want: seen{
				Method: "POST", URI: "/v1/pets",
				Headers: map[string]string{"Content-Type": "application/json; charset=utf-8"},
				Body:    `{"extra":12345678901234567890,"name":"Rex","owner":{"name":"Ann"},"tag":null}`,
			},
		},
		{
			spec: "petstore30.json", tool: "updatePet", args: `{"petId": 7, "name": "Rex"}`,
			want: seen{Method: "PUT", URI: "/v1/pets/7", Headers: map[string]string{"Content-Type": "application/json"}, Body: `{"name":"Rex"}`},
		},
		{
			spec: "tree31.yaml", tool: "drawShape",
			args: `{"canvas": "main", "filter": {"size": 2, "color": "red"}, "body": {"kind": "circle", "radius": 1.5}}`,
			want: seen{
				Method: "POST", URI: "/shapes?canvas=main&filter%5Bcolor%5D=red&filter%5Bsize%5D=2",
				Headers: map[string]string{"Content-Type": "application/vnd.shapes+json"},
				Body:    `{"kind":"circle","radius":1.5}`,
			},
		},
		{
			spec: "tree31.yaml", tool: "drawShape", args: `{}`,
			want: seen{Method: "POST", URI: "/shapes"},
		},
		{
			spec: "tree31.yaml", tool: "search", args: `{"q": "x y&z", "X-Trace": "t1", "body": {"q": "inner", "page": 2}}`,
			want: seen{
				Method: "POST", URI: "/search?q=x+y%26z",
				Headers: map[string]string{"X-Trace": "t1", "Content-Type": "application/json"},
				Body:    `{"page":2,"q":"inner"}`,
			},
		},
		{
			spec: "tree31.yaml", tool: "post_trees_treeId_nodes", args: `{"treeId": "t1", "name": "root", "children": [{"name": "c"}]}`,
			want: seen{Method: "POST", URI: "/trees/t1/nodes", Headers: map[string]string{"Content-Type": "application/json"}, Body: `{"children":[{"name":"c"}],"name":"root"}`},
		},
		{
			spec: "tree31.yaml", tool: "head_items_id", args: `{"id": 3}`,
			want: seen{Method: "HEAD", URI: "/items/3"},
		},
		{
			spec: "odd30.json", tool: "addNote", args: `{"where": {"a": 1}, "session": "s 1"}`,
			want: seen{Method: "GET", URI: "/notes?where=%7B%22a%22%3A1%7D", Headers: map[string]string{"Cookie": "session=s+1"}},
		},
		{
			spec: "odd30.json", tool: "addNote_2", args: `{"ignored": true}`,
			want: seen{Method: "POST", URI: "/notes"},
		},
		{
			spec: "odd30.json", tool: "rawFile", args: `{"fileId": "x y"}`,
			want: seen{Method: "GET", URI: "/files/x%20y/raw"},
		},
		{
			spec: "odd30.json", tool: "setTags", args: `{"body": ["a"]}`,
			want: seen{Method: "POST", URI: "/tags", Headers: map[string]string{"Content-Type": "application/json"}, Body: `["a"]`},
		},
	}
	rec := &recorder{headers: []string{"Content-Type", "X-Request-Id", "X-Trace", "Cookie"}}
	ts := startServer(t, rec)
	servers := map[string]*Server{}
	for _, tt := range tests {
		t.Run(tt.tool+" "+tt.args, func(t *testing.T) {
			s := servers[tt.spec]
			if s == nil {
				s = loaded(t, &Options{URL: ts.URL, Spec: filepath.Join("testdata", "specs", tt.spec)})
				servers[tt.spec] = s
			}
			res := callTool(t, findTool(t, s, tt.tool), tt.args)
			if res.IsError {
				t.Fatalf("tool error: %s", res.Text())
			}
			got := rec.take()
			if diff := cmp.Diff([]seen{tt.want}, got); diff != "" {
				t.Errorf("request mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRequestErrors checks arguments that cannot make a request: they are
// tool errors the model sees, and nothing is sent.
func TestRequestErrors(t *testing.T) {
	tests := []struct {
		tool, args, want string
	}{
		{"getPet", `{}`, `missing required path parameter "petId"`},
		{"getPet", `[1]`, `invalid arguments: expected a JSON object`},
		{"getPet", `{"petId":`, `invalid arguments: unexpected EOF`},
		{"getPet", `{"petId": ".."}`, `path parameter "petId" cannot be ".."`},
		{"getPet", `{"petId": ""}`, `path parameter "petId" cannot be ""`},
	}
	rec := &recorder{}
	ts := startServer(t, rec)
	s := loaded(t, &Options{URL: ts.URL, Spec: filepath.Join("testdata", "specs", "petstore30.json")})
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			res := callTool(t, findTool(t, s, tt.tool), tt.args)
			if !res.IsError || res.Text() != tt.want {
				t.Errorf("result = %v %q, want error %q", res.IsError, res.Text(), tt.want)
			}
		})
	}
	if got := rec.take(); len(got) != 0 {
		t.Errorf("requests were sent: %v", got)
	}
}

// FuzzBuildRequest feeds arbitrary arguments to every fixture operation:
// building the request must never panic, and path values must never add
// path segments.
func FuzzBuildRequest(f *testing.F) {
	var ops []*operation
	for _, name := range []string{"petstore30.json", "tree31.yaml", "odd30.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", "specs", name))
		if err != nil {
			f.Fatal(err)
		}
		doc, err := parseDocument(b)
		if err != nil {
			f.Fatal(err)
		}
		o, _ := buildOperations(doc)
		ops = append(ops, o...)
	}
	for _, seed := range []string{
		`{}`, `{"petId": "../../admin"}`, `{"tags": [1, [2], {"a": null}], "ids": {"x": 1}}`,
		`{"filter": {"a": [1, 2]}, "body": {"kind": "circle"}}`, `{"X-Request-Id": "a\r\nb: c"}`,
		`{"where": "not an object", "session": ";="}`, `null`, `{"fileId": "%2e%2e"}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, args string) {
		m, err := decodeArgs([]byte(args))
		if err != nil {
			return
		}
		for _, op := range ops {
			req, err := buildRequest(t.Context(), "http://127.0.0.1:1/base", op, m)
			if err != nil {
				continue
			}
			want := strings.Count("/base"+op.path, "/")
			if got := strings.Count(req.URL.EscapedPath(), "/"); got != want {
				t.Fatalf("%s: path %q has %d segments, want %d", op.info.Name, req.URL.EscapedPath(), got, want)
			}
		}
	})
}
