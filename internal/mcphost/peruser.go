package mcphost

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// PerUserConfig marks a server whose tool calls run on behalf of each user
// with that user's own credentials: one connection (remote) or one process
// (stdio) per active user, never shared between users. The server's own
// connection, made with its configured headers and env, only lists the
// catalogue; it never serves a call.
type PerUserConfig struct {
	// Header is the request header a remote server gets the user's value
	// in, after Prefix (such as "Bearer "). Env is the variable a stdio
	// server's process gets it in; "" means a stdio server needs no value
	// from the user, and each user still gets a process of their own.
	Header, Prefix, Env string
	// IdleTimeout stops a user's instance after this long without a call;
	// 0 means [DefaultPerUserIdle].
	IdleTimeout time.Duration
	// MaxInstances bounds the instances running at once; 0 means
	// [DefaultPerUserMax]. Over it, the least recently used idle instance
	// is stopped; when every instance is busy the call fails with a tool
	// error that says so.
	MaxInstances int
}

// Defaults of [PerUserConfig].
const (
	DefaultPerUserIdle = 10 * time.Minute
	DefaultPerUserMax  = 20
)

// ErrNoCredential is wrapped by an [Options.UserCredential] error for a
// user who has not connected their credentials to the server. Its message
// is shown to the model and the user as the tool's error, so it should name
// the server and say where to connect.
var ErrNoCredential = errors.New("no credentials connected")

// userSet holds the per-user instances of one per-user server. Each
// instance is a supervisor of its own (see [server]) for a configuration
// that adds the user's credential; it publishes nothing to the catalogue.
// The server's supervisor owns the set: start at the beginning of its run,
// close at its end, so Pool.Close and Pool.Apply stop every instance.
type userSet struct {
	parent *server
	idle   time.Duration
	max    int

	mu     sync.Mutex
	ctx    context.Context //nolint:containedctx // the instances' parent, the supervisor's lifetime; nil when not running
	cancel context.CancelFunc
	inst   map[string]*userInstance // mu guards ctx, cancel, inst and every instance's inflight and lastUsed
	wg     sync.WaitGroup           // instance goroutines and the reaper
}

// userInstance is one user's supervisor.
type userInstance struct {
	user     string
	sum      [sha256.Size]byte // fingerprint of the credential it runs with
	srv      *server
	stop     context.CancelFunc
	inflight int
	lastUsed time.Time
}

func newUserSet(parent *server, pc *PerUserConfig) *userSet {
	u := &userSet{parent: parent, idle: pc.IdleTimeout, max: pc.MaxInstances}
	if u.idle <= 0 {
		u.idle = DefaultPerUserIdle
	}
	if u.max <= 0 {
		u.max = DefaultPerUserMax
	}
	return u
}

// start makes the set usable under ctx and starts the idle reaper.
func (u *userSet) start(ctx context.Context) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.ctx, u.cancel = context.WithCancel(ctx)
	u.inst = make(map[string]*userInstance)
	u.wg.Add(1)
	go u.reap(u.ctx)
}

// close stops every instance and the reaper and waits for them.
func (u *userSet) close() {
	u.mu.Lock()
	cancel := u.cancel
	u.ctx, u.cancel, u.inst = nil, nil, nil
	u.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	u.wg.Wait()
}

// reap stops idle instances; it checks a few times per idle period.
func (u *userSet) reap(ctx context.Context) {
	defer u.wg.Done()
	t := time.NewTicker(max(u.idle/4, 10*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			u.reapIdle(now)
		}
	}
}

// reapIdle stops every instance without a call in flight whose last use is
// more than the idle timeout before now.
func (u *userSet) reapIdle(now time.Time) {
	u.mu.Lock()
	defer u.mu.Unlock()
	for user, in := range u.inst {
		if in.inflight == 0 && now.Sub(in.lastUsed) > u.idle {
			delete(u.inst, user)
			in.stop()
		}
	}
}

// needsValue reports whether the user must supply a value: always for a
// remote server, for a stdio one only when it names a variable.
func (u *userSet) needsValue() bool {
	return u.parent.cfg.transport() != TransportStdio || u.parent.cfg.PerUser.Env != ""
}

// call runs t's call on the instance of the user ctx acts for.
func (u *userSet) call(ctx context.Context, t *mcpTool, req *tools.CallRequest) (*tools.Result, error) {
	name := u.parent.cfg.Name
	user := tools.UserOf(ctx)
	var value string
	if u.needsValue() {
		fetch := u.parent.opts.UserCredential
		if fetch == nil {
			return tools.ErrorResult(fmt.Sprintf("mcp server %s needs each user's own credentials, and this Switchboard has no credential store", name)), nil
		}
		v, err := fetch(ctx, name, user)
		switch {
		case errors.Is(err, ErrNoCredential):
			return tools.ErrorResult(err.Error()), nil
		case err != nil:
			return nil, fmt.Errorf("reading the credentials for mcp server %q: %w", name, err)
		}
		value = v
	}
	in, err := u.acquire(user, value)
	if err != nil {
		return tools.ErrorResult(err.Error()), nil
	}
	defer u.release(in)
	select {
	case <-in.srv.started:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if in.srv.current() == nil {
		st := in.srv.snapshot()
		return tools.ErrorResult(fmt.Sprintf("mcp server %s could not be reached with your credentials (%s): %s",
			name, st.State, st.LastError)), nil
	}
	return (&mcpTool{srv: in.srv, info: t.info, nameJSON: t.nameJSON}).callOn(ctx, in.srv.current(), req)
}

// acquire returns the user's instance for cred, starting it (or replacing
// one that runs with another credential), with a call counted in flight.
func (u *userSet) acquire(user, value string) (*userInstance, error) {
	// The fingerprint replaces an instance when its user's credential
	// changed or was removed (on any replica: it is read on every call).
	sum := sha256.Sum256([]byte(value))
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.ctx == nil {
		return nil, fmt.Errorf("mcp server %s is not running", u.parent.cfg.Name)
	}
	if in, ok := u.inst[user]; ok {
		if in.sum == sum {
			in.inflight++
			in.lastUsed = time.Now()
			return in, nil
		}
		// The credential changed or was replaced: the old instance stops
		// now (a call still on it ends with it) and this call starts anew.
		delete(u.inst, user)
		in.stop()
	}
	if len(u.inst) >= u.max && !u.evictLocked() {
		return nil, fmt.Errorf("mcp server %s already runs %d per-user instances and all are busy; try again shortly",
			u.parent.cfg.Name, u.max)
	}
	in := &userInstance{user: user, sum: sum, inflight: 1, lastUsed: time.Now()}
	in.srv = u.parent.forUser(user, value)
	ictx, cancel := context.WithCancel(u.ctx)
	in.stop = cancel
	u.inst[user] = in
	u.wg.Add(1)
	go func() {
		defer u.wg.Done()
		defer close(in.srv.done)
		in.srv.run(ictx)
	}()
	return in, nil
}

// evictLocked stops the least recently used instance with no call in
// flight and reports whether there was one.
func (u *userSet) evictLocked() bool {
	var lru *userInstance
	for _, in := range u.inst {
		if in.inflight == 0 && (lru == nil || in.lastUsed.Before(lru.lastUsed)) {
			lru = in
		}
	}
	if lru == nil {
		return false
	}
	delete(u.inst, lru.user)
	lru.stop()
	return true
}

func (u *userSet) release(in *userInstance) {
	u.mu.Lock()
	defer u.mu.Unlock()
	in.inflight--
	in.lastUsed = time.Now()
}

// pid returns the pid of user's stdio instance, 0 when none runs.
func (u *userSet) pid(user string) int {
	u.mu.Lock()
	in := u.inst[user]
	u.mu.Unlock()
	if in == nil {
		return 0
	}
	return in.srv.snapshot().PID
}

// running returns how many instances run.
func (u *userSet) running() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return len(u.inst)
}

// forUser returns a supervisor, not yet running, for s's configuration
// with the user's value added: in the PerUser header of a remote server
// (over a configured header of that name), in the PerUser variable of a
// stdio server. It publishes no tools or status, and it never uses s's
// OAuth grant: the operator's stored token is not the user's.
func (s *server) forUser(user, value string) *server {
	pc := s.cfg.PerUser
	cfg := s.cfg
	cfg.PerUser = nil
	cfg.OAuth = nil
	switch {
	case cfg.transport() != TransportStdio:
		cfg.Headers = merged(s.cfg.Headers, map[string]string{pc.Header: pc.Prefix + value})
	case pc.Env != "":
		cfg.Env = merged(s.cfg.Env, map[string]string{pc.Env: value})
	}
	opts := *s.opts
	opts.Logger = s.log.With(logKeyUser, user)
	opts.OnToolsChanged, opts.OnStatus, opts.OnResourceUpdated = nil, nil, nil
	opts.DataDir, opts.OAuthRedirect = "", nil
	opts.UserCredential = nil
	return newServer(cfg, &opts, s.bufs)
}

func merged(base, over map[string]string) map[string]string {
	if len(base) == 0 && len(over) == 0 {
		return nil
	}
	out := make(map[string]string, len(base)+len(over))
	maps.Copy(out, base)
	maps.Copy(out, over)
	return out
}
