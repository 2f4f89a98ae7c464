package postgres

import (
	"context"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

// channel is the NOTIFY channel of the change feed. A payload is
// "instance topic key": the instance lets each replica skip its own
// changes, which it has already published in process.
const channel = "switchboard_changes"

// notify announces c to the other replicas. NOTIFY is sent once the write
// has committed, so a replica woken by it reads the new state.
func (db *DB) notify(ctx context.Context, c store.Change) error {
	_, err := db.pool.ExecContext(ctx, `SELECT pg_notify($1, $2)`, channel, db.instance+" "+string(c.Topic)+" "+c.Key)
	return err
}

// listen keeps a dedicated connection LISTENing on the change feed until
// ctx ends, publishing other replicas' changes in process. While the
// connection is down it wakes every watcher each poll interval, so that
// they re-read (the polling fallback), and once more on reconnecting,
// for the changes it may have missed.
func (db *DB) listen(ctx context.Context, dsn string, poll time.Duration) {
	feed := db.Feed()
	for ctx.Err() == nil {
		err := db.listenOnce(ctx, dsn, feed)
		if ctx.Err() != nil {
			return
		}
		db.listening.Store(false)
		db.logger.Warn("change feed connection lost; polling until it is back", logKeyErr, err, logKeyRetry, poll)
		feed.PublishAll()
		t := time.NewTimer(poll)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// listenOnce connects, LISTENs and publishes notifications until the
// connection fails or ctx ends.
func (db *DB) listenOnce(ctx context.Context, dsn string, feed *store.Feed) error {
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	conn, err := pgx.Connect(cctx, dsn)
	cancel()
	if err != nil {
		return err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		_ = conn.Close(cctx)
	}()
	if _, err := conn.Exec(ctx, `LISTEN `+channel); err != nil {
		return err
	}
	if !db.listening.Swap(true) {
		// Changes made while this replica was not listening are unknown:
		// every watcher re-reads once.
		feed.PublishAll()
	}
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		from, rest, _ := strings.Cut(n.Payload, " ")
		if from == db.instance {
			continue
		}
		topic, key, _ := strings.Cut(rest, " ")
		feed.Publish(store.Change{Topic: store.Topic(topic), Key: key})
	}
}

// Listening reports whether the change feed's connection is up; while it
// is not, watchers are woken by polling instead.
func (db *DB) Listening() bool { return db.listening.Load() }
