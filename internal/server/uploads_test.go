package server

import (
	"bytes"
	"context"
	"iter"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

var uploadPNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89")

// upload posts data as name into conv with key.
func (e *env) upload(t *testing.T, key, conv, name string, data []byte) (int, []byte) {
	t.Helper()
	return e.do(t, http.MethodPost, "/api/v1/conversations/"+conv+"/uploads?name="+url.QueryEscape(name), key, string(data))
}

// postWith posts a message attaching uploads and returns the status and
// body (the run's stream on 200).
func (e *env) postWith(t *testing.T, key, conv string, uploads ...string) (int, string) {
	t.Helper()
	resp := e.send(t, http.MethodPost, "/api/v1/conversations/"+conv+"/messages", key,
		postMessageBody{Message: "look", Uploads: uploads}, http.Header{"Accept": {"text/event-stream"}})
	defer resp.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(resp.Body)
	return resp.StatusCode, b.String()
}

// filesUnder lists the regular files below dir.
func filesUnder(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// TestUploads: an upload is stored with the type its bytes have, written
// under the uploads directory in its conversation's directory under a name
// of Switchboard's choosing, listed, and attached to a message, which
// tells the model its id and path.
func TestUploads(t *testing.T) {
	dir := t.TempDir()
	var (
		mu   sync.Mutex
		seen *agent.Request
	)
	e := newEnv(t, func(o *Options) { o.UploadDir = dir; o.UploadMaxBytes = 1024 })
	e.runner.run = func(_ context.Context, req *agent.Request) iter.Seq2[agent.Event, error] {
		mu.Lock()
		seen = req
		mu.Unlock()
		return events(agent.Event{Kind: agent.EventText, Text: "ok"}, doneEvent(req.RunID))
	}
	conv := e.createConversation(t)

	code, b := e.upload(t, e.key, conv, "sales report.csv", []byte("region,total\nnorth,3\n"))
	if code != http.StatusCreated {
		t.Fatalf("upload: %d %s", code, b)
	}
	csv := decode[uploadJSON](t, b)
	if csv.MIMEType != "text/csv" || csv.Size != 21 || !store.ValidUploadID(csv.ID) ||
		csv.Path != filepath.Join(dir, conversationDir(conv), csv.ID+"-sales_report.csv") {
		t.Errorf("upload = %+v", csv)
	}
	if got, err := os.ReadFile(csv.Path); err != nil || string(got) != "region,total\nnorth,3\n" {
		t.Errorf("the written file holds %q, %v", got, err)
	}

	// A type lie: PNG bytes named .txt are a PNG, on disk too; text named
	// .png is text.
	code, b = e.upload(t, e.key, conv, "innocent.txt", uploadPNG)
	img := decode[uploadJSON](t, b)
	if code != http.StatusCreated || img.MIMEType != "image/png" || !strings.HasSuffix(img.Path, "-innocent.png") {
		t.Errorf("PNG named .txt: %d %+v", code, img)
	}
	code, b = e.upload(t, e.key, conv, "photo.png", []byte("just text"))
	if u := decode[uploadJSON](t, b); code != http.StatusCreated || u.MIMEType != "text/plain" || !strings.HasSuffix(u.Path, "-photo.txt") {
		t.Errorf("text named .png: %d %+v", code, u)
	}

	code, b = e.do(t, http.MethodGet, "/api/v1/conversations/"+conv+"/uploads", e.key, nil)
	if l := decode[list[uploadJSON]](t, b); code != http.StatusOK || len(l.Items) != 3 || l.Items[0].ID != csv.ID {
		t.Errorf("listing: %d %s", code, b)
	}

	code, out := e.postWith(t, e.key, conv, csv.ID, img.ID)
	if code != http.StatusOK || !strings.Contains(out, "ok") {
		t.Fatalf("posting with uploads: %d %s", code, out)
	}
	mu.Lock()
	req := seen
	mu.Unlock()
	var notes []string
	images := 0
	for _, p := range req.Attachments {
		switch p.Type {
		case llm.PartText:
			notes = append(notes, p.Text)
		case llm.PartImage:
			images++
		}
	}
	if len(notes) != 2 || images != 1 || !strings.Contains(notes[0], `upload `+csv.ID) || !strings.Contains(notes[0], `read_upload tool (id "`+csv.ID+`")`) ||
		!strings.Contains(notes[0], "as the file "+csv.Path) {
		t.Errorf("attachments: notes %q, %d images", notes, images)
	}
}

// TestUploadAttacks: names that are paths or hide characters, files over
// the bound or of refused types, another user's conversation, and uploads
// attached from another conversation or user are all refused, and nothing
// is written outside the conversation's directory; a symbolic link
// planted for the conversation's directory does not lead the write out.
func TestUploadAttacks(t *testing.T) {
	dir := t.TempDir()
	e := newEnv(t, func(o *Options) { o.UploadDir = dir; o.UploadMaxBytes = 1024 })
	conv := e.createConversation(t)

	for _, name := range []string{
		"../../etc/passwd", "/etc/passwd", `..\..\boot.ini`, "..", ".", "",
		"a\x00b.txt", "evil\u202etxt.exe", "zero\u200bwidth.txt", "new\nline.txt",
		"a\u2215b.txt", "a\uff0fb.txt", strings.Repeat("n", 256),
	} {
		if code, b := e.upload(t, e.key, conv, name, []byte("hello")); code != http.StatusBadRequest {
			t.Errorf("name %q: %d %s; want 400", name, code, b)
		}
	}
	if code, b := e.upload(t, e.key, conv, "big.txt", bytes.Repeat([]byte("x"), 1025)); code != http.StatusRequestEntityTooLarge {
		t.Errorf("over the bound: %d %s; want 413", code, b)
	}
	for name, data := range map[string][]byte{
		"prog.txt":  {0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3},
		"zip.csv":   []byte("PK\x03\x04\x14\x00\x00\x00"),
		"latin.txt": {'c', 'a', 'f', 0xe9, ' ', 0xff},
		"empty.txt": {},
	} {
		if code, b := e.upload(t, e.key, conv, name, data); code != http.StatusUnsupportedMediaType && code != http.StatusBadRequest {
			t.Errorf("%s: %d %s; want it refused", name, code, b)
		}
	}
	if got := filesUnder(t, dir); len(got) != 0 {
		t.Errorf("refused uploads left files: %q", got)
	}

	// Unicode that is neither hidden nor a separator is a name like any
	// other; on disk it becomes underscores.
	code, b := e.upload(t, e.key, conv, "..résumé 履歴.txt", []byte("ok"))
	if u := decode[uploadJSON](t, b); code != http.StatusCreated || filepath.Dir(u.Path) != filepath.Join(dir, conversationDir(conv)) || u.Name != "..résumé 履歴.txt" {
		t.Errorf("unicode name: %d %+v", code, u)
	}

	// Another user can neither upload into alice's conversation nor list
	// its uploads nor attach them.
	bob := e.addUser(t, "bob", store.RoleUser, "*")
	e.srv.users.Invalidate()
	if code, b := e.upload(t, bob, conv, "x.txt", []byte("hi")); code != http.StatusNotFound {
		t.Errorf("bob uploading into alice's conversation: %d %s", code, b)
	}
	if code, b := e.do(t, http.MethodGet, "/api/v1/conversations/"+conv+"/uploads", bob, nil); code != http.StatusNotFound {
		t.Errorf("bob listing alice's uploads: %d %s", code, b)
	}
	code, b = e.upload(t, e.key, conv, "alice.txt", []byte("alice's secret"))
	if code != http.StatusCreated {
		t.Fatalf("upload: %d %s", code, b)
	}
	alices := decode[uploadJSON](t, b).ID
	code, b = e.do(t, http.MethodPost, "/api/v1/conversations", bob, map[string]string{"title": "bob's"})
	if code != http.StatusCreated {
		t.Fatalf("bob's conversation: %d %s", code, b)
	}
	bobConv := decode[conversationJSON](t, b).ID
	if code, out := e.postWith(t, bob, bobConv, alices); code != http.StatusNotFound {
		t.Errorf("bob attaching alice's upload to his conversation: %d %s", code, out)
	}
	other := e.createConversation(t)
	if code, out := e.postWith(t, e.key, other, alices); code != http.StatusNotFound {
		t.Errorf("alice attaching an upload of another conversation: %d %s", code, out)
	}
	for _, id := range []string{"../alice.txt", "up_nosuchupload", ""} {
		if code, out := e.postWith(t, e.key, conv, id); code != http.StatusNotFound {
			t.Errorf("attaching %q: %d %s", id, code, out)
		}
	}

	// A link planted where the next conversation's directory goes: the
	// write stays inside the uploads directory or fails.
	outside := t.TempDir()
	planted := e.createConversation(t)
	if err := os.Symlink(outside, filepath.Join(dir, conversationDir(planted))); err != nil {
		t.Fatal(err)
	}
	if code, b := e.upload(t, e.key, planted, "x.txt", []byte("escape?")); code == http.StatusCreated {
		t.Errorf("upload through a planted link: %d %s", code, b)
	}
	if got := filesUnder(t, outside); len(got) != 0 {
		t.Errorf("the upload was written outside the uploads directory: %q", got)
	}
}
