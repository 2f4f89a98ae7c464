// Package sqlite implements store.Store on SQLite through modernc.org/sqlite
// (pure Go, no cgo). It is Switchboard's embedded default: one file, one
// process.
//
// The database runs in WAL mode with foreign keys on and synchronous=NORMAL:
// a process that dies loses nothing it committed; a power cut may lose the
// last transactions but never corrupts the file.
// Writes go through a single connection, so writers queue in Go instead of
// spinning on SQLITE_BUSY; reads use a separate pool of read-only
// connections, which WAL lets run alongside the writer. The schema is created
// and upgraded by embedded, numbered migrations when the database opens.
//
// Only internal/app (and commands that open a database for their own use)
// may import this package; everything else uses the store contract.
package sqlite
