package storetest

import (
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

// Changes checks the change feed between a writer and a watcher on the same
// database: the same store (SQLite, one process) or two replicas
// (PostgreSQL). Each write the feed covers wakes the watcher of its topic
// and key within within, and a watcher of another key stays asleep.
func Changes(t *testing.T, writer, watcher store.Store, within time.Duration) {
	ctx := t.Context()
	w, ok := watcher.(store.Changes)
	if !ok {
		t.Fatalf("%T does not implement store.Changes", watcher)
	}
	c, err := writer.CreateConversation(ctx, store.Conversation{})
	must(t, "CreateConversation", err)
	ap, err := writer.CreateApproval(ctx, store.Approval{ConversationID: c.ID, Tool: "terminal"})
	must(t, "CreateApproval", err)
	other, err := writer.CreateApproval(ctx, store.Approval{ConversationID: c.ID, Tool: "terminal"})
	must(t, "CreateApproval", err)

	wake := func(what string, topic store.Topic, key string, write func()) {
		t.Helper()
		ch, stop := w.Watch(topic, key)
		defer stop()
		drain(ch) // a wake-up from an earlier step (reconnect) is not this one
		write()
		select {
		case <-ch:
		case <-time.After(within):
			t.Errorf("%s: watcher of %s %q not woken within %s", what, topic, key, within)
		}
	}

	quiet, stopQuiet := w.Watch(store.TopicApprovals, other.ID)
	defer stopQuiet()
	drain(quiet)
	wake("DecideApproval", store.TopicApprovals, ap.ID, func() {
		_, err := writer.DecideApproval(ctx, ap.ID, store.Decision{State: store.ApprovalApproved})
		must(t, "DecideApproval", err)
	})
	var u store.User
	wake("CreateUser", store.TopicUsers, "", func() {
		u, err = writer.CreateUser(ctx, store.User{Name: "ada", KeyHash: strings.Repeat("ab", 32)})
		must(t, "CreateUser", err)
	})
	wake("DeleteUser", store.TopicUsers, "ada", func() {
		must(t, "DeleteUser", writer.DeleteUser(ctx, u.ID))
	})
	wake("CreateAgent", store.TopicAgents, "helper", func() {
		_, err := writer.CreateAgent(ctx, store.Agent{Name: "helper", Prompt: "p"})
		must(t, "CreateAgent", err)
	})
	wake("AssignServer", store.TopicAgents, "", func() {
		_, err := writer.AssignServer(ctx, "helper", "files")
		must(t, "AssignServer", err)
	})
	wake("CreateConfigEntry", store.TopicConfig, "server/files", func() {
		_, err := writer.CreateConfigEntry(ctx, store.ConfigEntry{Kind: store.EntryServer, Name: "files", Body: []byte(`{}`), Sealed: []byte{1}})
		must(t, "CreateConfigEntry", err)
	})
	wake("DeleteConfigEntry", store.TopicConfig, "", func() {
		must(t, "DeleteConfigEntry", writer.DeleteConfigEntry(ctx, store.EntryServer, "files"))
	})
	if n, ok := writer.(store.Notifier); ok {
		wake("Notify", store.TopicRuns, "run-1", func() {
			must(t, "Notify", n.Notify(ctx, store.Change{Topic: store.TopicRuns, Key: "run-1"}))
		})
	} else {
		t.Errorf("%T does not implement store.Notifier", writer)
	}
	select {
	case <-quiet:
		// A reconnect of the feed wakes every watcher; only a feed that
		// stayed up must leave this one alone.
		if l, ok := watcher.(interface{ Listening() bool }); !ok || l.Listening() {
			t.Errorf("watcher of approval %s woken by changes to others", other.ID)
		}
	default:
	}

	// A stopped watch is never woken, and stopping twice is fine.
	ch, stop := w.Watch(store.TopicApprovals, other.ID)
	stop()
	stop()
	_, err = writer.DecideApproval(ctx, other.ID, store.Decision{State: store.ApprovalDenied})
	must(t, "DecideApproval", err)
	select {
	case <-ch:
		t.Errorf("stopped watch woken")
	case <-time.After(50 * time.Millisecond):
	}
}

func drain(ch <-chan struct{}) {
	select {
	case <-ch:
	default:
	}
}
