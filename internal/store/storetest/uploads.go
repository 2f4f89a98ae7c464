package storetest

import (
	"bytes"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

func testUploads(t *testing.T, s store.Store) {
	c, err := s.CreateConversation(ctx(t), store.Conversation{Title: "t"})
	must(t, "CreateConversation", err)
	other, err := s.CreateConversation(ctx(t), store.Conversation{Title: "o"})
	must(t, "CreateConversation", err)
	data := []byte("a,b\n1,2\n\x00\xff binary bytes survive")
	u, err := s.CreateUpload(ctx(t), store.Upload{ConversationID: c.ID, UserID: "u1", Name: "ünïcode.csv", MIMEType: "text/csv", Size: int64(len(data)), Data: data, Path: "/r/up/x.csv"})
	must(t, "CreateUpload", err)
	if !store.ValidUploadID(u.ID) || u.CreatedAt.IsZero() || len(u.SHA256) != 64 || u.Data != nil {
		t.Errorf("CreateUpload returned %+v", u)
	}
	_, err = s.CreateUpload(ctx(t), store.Upload{ConversationID: "no-such", Name: "x", MIMEType: "text/plain"})
	wantErr(t, "CreateUpload into a missing conversation", err, store.ErrNotFound)
	for _, bad := range []store.Upload{
		{ID: "../etc", ConversationID: c.ID, Name: "x", MIMEType: "text/plain"},
		{ConversationID: c.ID, MIMEType: "text/plain"},
		{ConversationID: c.ID, Name: "x", MIMEType: "text/plain", Size: 3, Data: []byte("ab")},
	} {
		_, err := s.CreateUpload(ctx(t), bad)
		wantErr(t, "CreateUpload of an invalid upload", err, store.ErrInvalid)
	}

	got, err := s.GetUpload(ctx(t), u.ID)
	must(t, "GetUpload", err)
	if !bytes.Equal(got.Data, data) || got.Name != "ünïcode.csv" || got.UserID != "u1" || got.ConversationID != c.ID ||
		got.Path != "/r/up/x.csv" || got.SHA256 != u.SHA256 || !got.CreatedAt.Equal(u.CreatedAt) {
		t.Errorf("GetUpload = %+v, want %+v with its data", got, u)
	}
	_, err = s.GetUpload(ctx(t), "up_missing0")
	wantErr(t, "GetUpload of a missing upload", err, store.ErrNotFound)

	empty, err := s.CreateUpload(ctx(t), store.Upload{ConversationID: c.ID, Name: "empty.txt", MIMEType: "text/plain", Data: []byte{}})
	must(t, "CreateUpload of an empty file", err)
	list, err := s.ListUploads(ctx(t), c.ID)
	must(t, "ListUploads", err)
	if len(list) != 2 || list[0].ID != u.ID || list[1].ID != empty.ID || list[0].Data != nil {
		t.Errorf("ListUploads = %+v", list)
	}
	if l, err := s.ListUploads(ctx(t), other.ID); err != nil || len(l) != 0 {
		t.Errorf("ListUploads of another conversation = %+v, %v", l, err)
	}
	must(t, "DeleteConversation", s.DeleteConversation(ctx(t), c.ID))
	_, err = s.GetUpload(ctx(t), u.ID)
	wantErr(t, "GetUpload after its conversation was deleted", err, store.ErrNotFound)
}
