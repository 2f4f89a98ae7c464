package users

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

// Source is the part of the store a [Directory] reads.
type Source interface {
	ListUsers(ctx context.Context) ([]store.User, error)
	UsersVersion(ctx context.Context) (int64, error)
}

// DefaultCheck is how old a [Directory]'s view of the users may get before
// a lookup reads the store's users version again.
const DefaultCheck = 250 * time.Millisecond

// Options configure a [Directory]; nil or zero fields mean defaults.
type Options struct {
	// Check is the longest time between two reads of the users version
	// (DefaultCheck). Whether anonymous access is still allowed is checked
	// on every anonymous request regardless.
	Check time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Directory is a cached view of the users. It reloads every user when the
// store's users version changes, which any process writing the users table
// changes; it reads that version at most every [Options].Check, or at the
// next lookup after [Directory.Invalidate]. A Directory is safe for
// concurrent use and owns no goroutine.
type Directory struct {
	src   Source
	check time.Duration
	now   func() time.Time

	view atomic.Pointer[view]
	// started numbers the checks of the store: a check takes the next
	// number when it begins.
	started atomic.Uint64
	// invalidated is the number of the last check begun before the last
	// Invalidate: no view from a check numbered up to it is fresh.
	invalidated atomic.Uint64
	// inflight shares one check among the callers that need it.
	inflight singleflight.Group
	// waiting counts callers inside a check (running or sharing it), for
	// tests.
	waiting atomic.Int32
}

// view is one immutable snapshot of the users.
type view struct {
	n       uint64    // the check that made it
	at      time.Time // when that check began
	version int64
	byHash  map[string]store.User
	byID    map[string]store.User
}

// New returns a Directory over src. opts is copied; nil means defaults.
func New(src Source, opts *Options) *Directory {
	d := &Directory{src: src, check: DefaultCheck, now: time.Now}
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
// another process announces (a database notification) applies at once. A
// check already running when it is called does not make the view fresh:
// it may have read the version before the change.
func (d *Directory) Invalidate() {
	d.invalidated.Store(d.started.Load())
}

// fresh reports whether v may answer a lookup that accepts a view up to
// maxAge old.
func (d *Directory) fresh(v *view, maxAge time.Duration) bool {
	return v != nil && v.n > d.invalidated.Load() && d.now().Sub(v.at) < maxAge
}

// current returns a view no older than maxAge.
//
// A caller that needs a check needs one that began after it arrived, since
// a change committed before that (a user added by another process) must
// show. Concurrent callers share one: those arriving while a check runs
// wait for it, then share the next one, which the first of them begins for
// all. Under load this is a read per wave of requests instead of one per
// request (docs/BENCHMARKS.md, "MCP gateway"); a lone caller still reads
// once per call.
func (d *Directory) current(ctx context.Context, maxAge time.Duration) (*view, error) {
	if v := d.view.Load(); d.fresh(v, maxAge) {
		return v, nil
	}
	need := d.started.Load() + 1
	for {
		// A check that began after this caller arrived may have ended
		// while it was waiting for an older one.
		if v := d.view.Load(); v != nil && v.n >= need {
			return v, nil
		}
		d.waiting.Add(1)
		r, err, _ := d.inflight.Do("", func() (any, error) { return d.read(ctx, need) })
		d.waiting.Add(-1)
		c := r.(checked)
		if c.n >= need {
			return c.view, err
		}
	}
}

// checked is how one check ended: its number, and the view it left
// (nil when it failed).
type checked struct {
	n    uint64
	view *view
}

// checkTimeout bounds one check of the store. A check is shared by every
// caller waiting for it, so it does not end with the context of the one
// that happens to run it.
const checkTimeout = 10 * time.Second

// read runs one check for a caller that needs one numbered need or later:
// it reads the users version and, when that changed (or nothing is loaded
// yet), every user, and publishes the new view. When such a check has
// ended since the caller last looked, its view is the answer.
func (d *Directory) read(ctx context.Context, need uint64) (checked, error) {
	if v := d.view.Load(); v != nil && v.n >= need {
		return checked{n: v.n, view: v}, nil
	}
	n := d.started.Add(1)
	at := d.now()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), checkTimeout)
	defer cancel()
	old := d.view.Load()
	version, err := d.src.UsersVersion(ctx)
	if err != nil {
		return checked{n: n}, fmt.Errorf("checking for changed users: %w", err)
	}
	v := &view{n: n, at: at, version: version}
	if old != nil && old.version == version {
		v.byHash, v.byID = old.byHash, old.byID
	} else {
		us, err := d.src.ListUsers(ctx)
		if err != nil {
			return checked{n: n}, fmt.Errorf("loading users: %w", err)
		}
		v.byHash = make(map[string]store.User, len(us))
		v.byID = make(map[string]store.User, len(us))
		for _, u := range us {
			v.byHash[u.KeyHash] = u
			v.byID[u.ID] = u
		}
	}
	// Only one check runs at a time (the singleflight), so the view it
	// replaces is older than it.
	d.view.Store(v)
	return checked{n: n, view: v}, nil
}

// ByKeyHash returns the user whose key hashes to keyHash, disabled ones
// too, and whether there is one.
func (d *Directory) ByKeyHash(ctx context.Context, keyHash string) (store.User, bool, error) {
	v, err := d.current(ctx, d.check)
	if err != nil {
		return store.User{}, false, err
	}
	u, ok := v.byHash[keyHash]
	if !ok {
		// A key created a moment ago must work at once: an unknown key
		// costs one read of the users version, never a stale 401.
		if v, err = d.current(ctx, 0); err != nil {
			return store.User{}, false, err
		}
		u, ok = v.byHash[keyHash]
	}
	return u, ok, nil
}

// ByID returns the user with id, disabled ones too, and whether there is
// one.
func (d *Directory) ByID(ctx context.Context, id string) (store.User, bool, error) {
	v, err := d.current(ctx, d.check)
	if err != nil {
		return store.User{}, false, err
	}
	u, ok := v.byID[id]
	return u, ok, nil
}

// Empty reports whether no user exists. It reads the users version on
// every call: anonymous access depends on it and must end the moment the
// first user is created, by whichever process.
func (d *Directory) Empty(ctx context.Context) (bool, error) {
	v, err := d.current(ctx, 0)
	if err != nil {
		return false, err
	}
	return len(v.byID) == 0, nil
}

// MayBeEmpty reports whether no user existed at the last check, checking
// again when that is older than the check interval. On a store error it
// reports true: callers use it to be stricter, never to grant access.
func (d *Directory) MayBeEmpty(ctx context.Context) bool {
	v, err := d.current(ctx, d.check)
	if err != nil {
		return true
	}
	return len(v.byID) == 0
}
