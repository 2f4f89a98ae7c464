// Package protect is the one rule that keeps tools away from Switchboard's
// own files: its data directory (database, OAuth tokens, stored tool
// outputs), every config file it loads or would discover, and the record
// of trusted configs.
//
// A [Set] is built once, when Switchboard starts, from the paths the
// configuration names. It holds an O_PATH handle on each object that
// exists then, so it knows the object by identity (device and inode) and
// can ask the kernel where the object is now: renaming a parent folder
// (proj/state to proj/old) moves the handle's path with it. The file
// tools ask [Set.Check] about the object they actually opened (its
// identity and its kernel path, read from the open descriptor, so a
// symlink or a rename between a check and the use changes nothing); the
// sandboxes hide [Set.Paths], asked afresh at each start, and pin the
// parents of those paths so that a confined command cannot rename them
// (see internal/sandbox).
//
// Layer: leaf. It imports the standard library and golang.org/x/sys only,
// and holds no package state.
package protect
