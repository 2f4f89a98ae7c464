package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// uploadMap is an UploadSource over a map, by ID.
type uploadMap map[string]store.Upload

func (m uploadMap) GetUpload(_ context.Context, id string) (store.Upload, error) {
	u, ok := m[id]
	if !ok {
		return store.Upload{}, fmt.Errorf("getting upload: %w", store.ErrNotFound)
	}
	return u, nil
}

// TestReadUpload: read_upload reads the uploads of the call's user in the
// call's conversation, and nothing else: another user's upload, one of
// another conversation, a call made in no conversation and a malformed id
// get the same answer as a missing one.
func TestReadUpload(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	ups := uploadMap{
		"up_TEXT0001": {ID: "up_TEXT0001", ConversationID: "c1", UserID: "ann", Name: "data.csv", MIMEType: "text/csv", Size: 13, Data: []byte("a,b\n1,2\nü,3\n")},
		"up_IMAGE001": {ID: "up_IMAGE001", ConversationID: "c1", UserID: "ann", Name: "x.png", MIMEType: "image/png", Size: int64(len(png)), Data: png},
		"up_PDF00001": {ID: "up_PDF00001", ConversationID: "c1", UserID: "ann", Name: "r.pdf", MIMEType: "application/pdf", Size: 8, Data: []byte("%PDF-1.4"), Path: "/root/up/r.pdf"},
		"up_BOBS0001": {ID: "up_BOBS0001", ConversationID: "c1", UserID: "bob", Name: "b.txt", MIMEType: "text/plain", Size: 1, Data: []byte("b")},
		"up_OTHER001": {ID: "up_OTHER001", ConversationID: "c2", UserID: "ann", Name: "o.txt", MIMEType: "text/plain", Size: 1, Data: []byte("o")},
	}
	e := newEnv(t, &Options{Uploads: ups})
	tl := e.tools[nameReadUpload]
	call := func(user, conv, args string) *tools.Result {
		t.Helper()
		ctx := tools.WithConversation(tools.WithUser(context.Background(), user), conv)
		res, err := tl.Call(ctx, &tools.CallRequest{Arguments: json.RawMessage(args)})
		if err != nil {
			t.Fatalf("read_upload %s: %v", args, err)
		}
		return res
	}

	res := call("ann", "c1", `{"id":"up_TEXT0001"}`)
	if res.IsError || !strings.Contains(res.Text(), "a,b\n1,2\nü,3\n") || !strings.Contains(res.Text(), "[bytes 0-13 of 13; end of file]") {
		t.Errorf("text upload: %+v", res)
	}
	res = call("ann", "c1", `{"id":"up_TEXT0001","offset":4,"limit":4}`)
	if !strings.Contains(res.Text(), "1,2\n[bytes 4-8 of 13; call read_upload with offset=8 for more]") {
		t.Errorf("page of a text upload: %q", res.Text())
	}
	res = call("ann", "c1", `{"id":"up_IMAGE001"}`)
	if res.IsError || len(res.Content) != 2 || res.Content[1].Type != tools.ContentImage || res.Content[1].MIMEType != "image/png" {
		t.Errorf("image upload: %+v", res)
	}
	res = call("ann", "c1", `{"id":"up_PDF00001"}`)
	if res.IsError || len(res.Content) != 2 || res.Content[1].Type != tools.ContentResource || !strings.Contains(res.Text(), "/root/up/r.pdf") {
		t.Errorf("pdf upload: %+v", res)
	}

	for _, tc := range []struct{ name, user, conv, args, want string }{
		{"another user's upload", "ann", "c1", `{"id":"up_BOBS0001"}`, `no upload "up_BOBS0001" in this conversation`},
		{"the owner in another conversation", "bob", "c2", `{"id":"up_BOBS0001"}`, "no upload"},
		{"an upload of another conversation", "ann", "c1", `{"id":"up_OTHER001"}`, `no upload "up_OTHER001" in this conversation`},
		{"a call in no conversation", "ann", "", `{"id":"up_TEXT0001"}`, "no upload"},
		{"the local user", "", "c1", `{"id":"up_TEXT0001"}`, "no upload"},
		{"a missing upload", "ann", "c1", `{"id":"up_MISSING1"}`, "no upload"},
		{"a path as id", "ann", "c1", `{"id":"../../etc/passwd"}`, "is malformed"},
		{"a NUL in the id", "ann", "c1", `{"id":"up_TEXT0001\u0000"}`, "is malformed"},
		{"offset past the end", "ann", "c1", `{"id":"up_TEXT0001","offset":99}`, "outside the file"},
		{"limit too large", "ann", "c1", `{"id":"up_TEXT0001","limit":99999999}`, "out of range"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := call(tc.user, tc.conv, tc.args)
			if !res.IsError || !strings.Contains(res.Text(), tc.want) {
				t.Errorf("got %+v, want an error containing %q", res, tc.want)
			}
			if strings.Contains(res.Text(), "b\n") || strings.Contains(res.Text(), "o\n") {
				t.Errorf("the refusal shows the content: %q", res.Text())
			}
		})
	}
}
