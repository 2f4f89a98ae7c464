package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

func testConversations(t *testing.T, s store.Store) {
	before := time.Now()
	c, err := s.CreateConversation(ctx(t), store.Conversation{Title: "first", Agent: "bob", User: "ann"})
	must(t, "CreateConversation", err)
	if c.ID == "" {
		t.Fatal("CreateConversation assigned no ID")
	}
	checkTime(t, "CreatedAt", c.CreatedAt, before, time.Now())
	if !c.UpdatedAt.Equal(c.CreatedAt) {
		t.Errorf("UpdatedAt = %v, want CreatedAt %v", c.UpdatedAt, c.CreatedAt)
	}
	got, err := s.GetConversation(ctx(t), c.ID)
	must(t, "GetConversation", err)
	diff(t, "GetConversation", c, got)

	_, err = s.CreateConversation(ctx(t), store.Conversation{ID: c.ID})
	wantErr(t, "CreateConversation with a taken ID", err, store.ErrConflict)

	must(t, "SetConversationTitle", s.SetConversationTitle(ctx(t), c.ID, "renamed"))
	got, err = s.GetConversation(ctx(t), c.ID)
	must(t, "GetConversation", err)
	if got.Title != "renamed" || got.UpdatedAt.Before(c.UpdatedAt) {
		t.Errorf("after SetConversationTitle: title %q updated %v, want \"renamed\" and not before %v", got.Title, got.UpdatedAt, c.UpdatedAt)
	}

	wantErr(t, "SetConversationTitle of a missing conversation", s.SetConversationTitle(ctx(t), "nope", "x"), store.ErrNotFound)
	_, err = s.GetConversation(ctx(t), "nope")
	wantErr(t, "GetConversation of a missing conversation", err, store.ErrNotFound)

	must(t, "DeleteConversation", s.DeleteConversation(ctx(t), c.ID))
	_, err = s.GetConversation(ctx(t), c.ID)
	wantErr(t, "GetConversation after delete", err, store.ErrNotFound)
	wantErr(t, "DeleteConversation twice", s.DeleteConversation(ctx(t), c.ID), store.ErrNotFound)
}

func testConversationPaging(t *testing.T, s store.Store) {
	base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var want []string
	// Two share a time, so the ID must break the tie across page ends.
	for i := range 7 {
		at := base.Add(time.Duration(i/2) * time.Minute)
		c, err := s.CreateConversation(ctx(t), store.Conversation{ID: fmt.Sprintf("c%d", i), User: "ann", CreatedAt: at})
		must(t, "CreateConversation", err)
		want = append([]string{c.ID}, want...)
	}
	_, err := s.CreateConversation(ctx(t), store.Conversation{User: "bob"})
	must(t, "CreateConversation", err)

	var got []string
	cursor := ""
	for pages := 0; ; pages++ {
		if pages > 10 {
			t.Fatal("ListConversations never returned an empty cursor")
		}
		page, next, err := s.ListConversations(ctx(t), store.ConversationFilter{User: "ann", Limit: 3, Cursor: cursor})
		must(t, "ListConversations", err)
		if len(page) > 3 {
			t.Fatalf("page of %d conversations, limit 3", len(page))
		}
		for _, c := range page {
			got = append(got, c.ID)
		}
		if next == "" {
			break
		}
		cursor = next
	}
	diff(t, "conversations newest first", want, got)

	all, _, err := s.ListConversations(ctx(t), store.ConversationFilter{User: "ann"})
	must(t, "ListConversations", err)
	if len(all) != 7 {
		t.Errorf("ListConversations without limit: %d conversations, want 7", len(all))
	}
	_, _, err = s.ListConversations(ctx(t), store.ConversationFilter{User: "ann", Cursor: "garbage"})
	wantErr(t, "ListConversations with a malformed cursor", err, store.ErrInvalid)
}

// testChosenConversationID follows what `switchboard chat --conversation ID`
// does: get, else create under that ID.
func testChosenConversationID(t *testing.T, s store.Store) {
	const id = "my-chat"
	_, err := s.GetConversation(ctx(t), id)
	wantErr(t, "GetConversation before creating", err, store.ErrNotFound)
	c, err := s.CreateConversation(ctx(t), store.Conversation{ID: id})
	must(t, "CreateConversation", err)
	if c.ID != id {
		t.Errorf("ID = %q, want %q", c.ID, id)
	}
	_, err = s.AppendMessages(ctx(t), id, store.Message{Message: userText("hello")})
	must(t, "AppendMessages", err)
	msgs, err := s.ListMessages(ctx(t), id, store.MessageFilter{})
	must(t, "ListMessages", err)
	if len(msgs) != 1 {
		t.Errorf("ListMessages: %d messages, want 1", len(msgs))
	}
}
