package server

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

// UserSource is the part of the store a [Directory] reads.
type UserSource interface {
	ListUsers(ctx context.Context) ([]store.User, error)
	UsersVersion(ctx context.Context) (int64, error)
}

// DefaultDirectoryCheck is how old a [Directory]'s view of the users may get
// before a lookup reads the store's users version again.
const DefaultDirectoryCheck = 250 * time.Millisecond

// DirectoryOptions configure a [Directory]; nil or zero fields mean defaults.
type DirectoryOptions struct {
	// Check is the longest time between two reads of the users version
	// (DefaultDirectoryCheck). Whether anonymous access is still allowed is
	// checked on every anonymous request regardless.
	Check time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Directory is the server's cached view of the users: by key hash for
// authentication, by ID for permission checks (the gateway's too), and
// whether any user exists, which ends anonymous access. It reloads every
// user when the store's users version changes, which any process writing
// the users table changes; it reads that version at most every
// [DirectoryOptions].Check, or at the next lookup after [Directory.Invalidate].
// A Directory is safe for concurrent use and owns no goroutine.
type Directory struct {
	src   UserSource
	check time.Duration
	now   func() time.Time

	mu      sync.Mutex
	checked time.Time             // guarded by mu; zero forces a check
	version int64                 // guarded by mu
	loaded  bool                  // guarded by mu
	byHash  map[string]store.User // guarded by mu
	byID    map[string]store.User // guarded by mu

	// Checks of the store are numbered; one runs at a time, outside mu,
	// and callers waiting for a check share the next one (see
	// refreshLocked). All guarded by mu; checkDone is signalled when a
	// check ends.
	checking bool
	started  uint64 // checks started
	finished uint64 // checks ended
	// invalidated is the number of checks started before the last
	// Invalidate: none of those may mark the view fresh.
	invalidated uint64
	checkErr    error // how the last check ended
	waiting     int   // callers waiting for a check, for tests
	checkDone   sync.Cond
}

// NewDirectory returns a Directory over src. opts is copied; nil means
// defaults.
func NewDirectory(src UserSource, opts *DirectoryOptions) *Directory {
	d := &Directory{src: src, check: DefaultDirectoryCheck, now: time.Now}
	d.checkDone.L = &d.mu
	if opts != nil {
		if opts.Check > 0 {
			d.check = opts.Check
		}
		if opts.Now != nil {
			d.now = opts.Now
		}
	}
	return d
}

// Invalidate makes the next lookup read the users version, so a change
// another process announces (a database notification) applies at once.
func (d *Directory) Invalidate() {
	d.mu.Lock()
	d.checked = time.Time{}
	d.invalidated = d.started
	d.mu.Unlock()
}

// checkTimeout bounds one check of the store. A check is shared by every
// caller waiting for it, so it does not end with the context of the one
// that happens to run it.
const checkTimeout = 10 * time.Second

// refreshLocked brings the view up to date: it reads the users version when
// the last read is older than maxAge, and every user when that changed.
//
// A caller needs a check that started after it arrived, since a change
// committed before that (a user added by another process) must show.
// Concurrent callers share one: while a check runs, those arriving wait
// for it to end and for the next one, which the first of them starts for
// all. Under load this is a read per wave of requests instead of one per
// request, each behind the last on the lock (docs/BENCHMARKS.md, "MCP
// gateway"); a lone caller still reads once per call.
func (d *Directory) refreshLocked(ctx context.Context, maxAge time.Duration) error {
	if d.loaded && !d.checked.IsZero() && d.now().Sub(d.checked) < maxAge {
		return nil
	}
	need := d.started + 1
	for d.finished < need {
		if d.checking {
			d.waiting++
			d.checkDone.Wait()
			d.waiting--
			continue
		}
		d.checking = true
		d.started++
		n, loaded, version, at := d.started, d.loaded, d.version, d.now()
		v, us, err := d.readUnlocked(ctx, n, loaded, version)
		if err == nil {
			if us != nil {
				d.byHash = make(map[string]store.User, len(us))
				d.byID = make(map[string]store.User, len(us))
				for _, u := range us {
					d.byHash[u.KeyHash] = u
					d.byID[u.ID] = u
				}
			}
			d.version, d.loaded = v, true
			// The view is as fresh as the check's start, and not fresh at
			// all when an Invalidate came while it ran: the change it
			// announced may have been committed after the version was read.
			if n > d.invalidated {
				d.checked = at
			}
		}
		d.finished, d.checkErr, d.checking = n, err, false
		d.checkDone.Broadcast()
	}
	return d.checkErr
}

// readUnlocked runs check n's read without holding mu. Should the read
// panic (a store's bug), the check is ended before the panic goes on, with
// mu held again as the caller expects: otherwise every later caller would
// wait for it forever.
func (d *Directory) readUnlocked(ctx context.Context, n uint64, loaded bool, version int64) (int64, []store.User, error) {
	d.mu.Unlock()
	ended := false
	defer func() {
		d.mu.Lock()
		if !ended {
			d.finished, d.checkErr, d.checking = n, fmt.Errorf("checking for changed users: the store panicked"), false
			d.checkDone.Broadcast()
		}
	}()
	v, us, err := d.read(ctx, loaded, version)
	ended = true
	return v, us, err
}

// read reads the users version and, when it is not version (or nothing is
// loaded yet), every user; us is nil when the users are unchanged.
func (d *Directory) read(ctx context.Context, loaded bool, version int64) (v int64, us []store.User, err error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), checkTimeout)
	defer cancel()
	v, err = d.src.UsersVersion(ctx)
	if err != nil {
		return 0, nil, fmt.Errorf("checking for changed users: %w", err)
	}
	if loaded && v == version {
		return v, nil, nil
	}
	us, err = d.src.ListUsers(ctx)
	if err != nil {
		return 0, nil, fmt.Errorf("loading users: %w", err)
	}
	if us == nil {
		us = []store.User{}
	}
	return v, us, nil
}

// ByKeyHash returns the user whose key hashes to keyHash, disabled ones
// too, and whether there is one.
func (d *Directory) ByKeyHash(ctx context.Context, keyHash string) (store.User, bool, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.refreshLocked(ctx, d.check); err != nil {
		return store.User{}, false, err
	}
	u, ok := d.byHash[keyHash]
	if !ok {
		// A key created a moment ago must work at once: an unknown key
		// costs one read of the users version, never a stale 401.
		if err := d.refreshLocked(ctx, 0); err != nil {
			return store.User{}, false, err
		}
		u, ok = d.byHash[keyHash]
	}
	return u, ok, nil
}

// ByID returns the user with id, disabled ones too, and whether there is
// one.
func (d *Directory) ByID(ctx context.Context, id string) (store.User, bool, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.refreshLocked(ctx, d.check); err != nil {
		return store.User{}, false, err
	}
	u, ok := d.byID[id]
	return u, ok, nil
}

// Empty reports whether no user exists. It reads the users version on
// every call: anonymous access depends on it and must end the moment the
// first user is created, by whichever process.
func (d *Directory) Empty(ctx context.Context) (bool, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.refreshLocked(ctx, 0); err != nil {
		return false, err
	}
	return len(d.byID) == 0, nil
}

// mayBeEmpty reports whether no user existed at the last check, checking
// again when that is older than the check interval. On a store error it
// reports true: callers use it to be stricter, never to grant access.
func (d *Directory) mayBeEmpty(ctx context.Context) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.refreshLocked(ctx, d.check); err != nil {
		return true
	}
	return len(d.byID) == 0
}
