package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"
)

// part is one thing the service runs. The group starts parts in order and
// stops them in the reverse order, so a part may rely on every part
// before it while it runs and while it stops.
type part struct {
	name string
	// start, when set, runs before the part's goroutine; an error stops
	// the parts already started and ends the group.
	start func(ctx context.Context) error
	// run, when set, is the part's goroutine, owned by the group. It runs
	// until its context ends (or stop makes it return); an error it
	// returns before that stops the whole group.
	run func(ctx context.Context) error
	// stop, when set, ends the part (stop accepting, drain, flush) before
	// its goroutine's context is cancelled. It gets the shutdown deadline.
	stop func(ctx context.Context) error
}

// group runs parts as one: every goroutine has this one owner, the first
// failure stops them all, and they stop in a written order.
type group struct {
	parts   []part
	timeout time.Duration // bounds the whole shutdown
	logger  *slog.Logger
}

// running is a started part's goroutine.
type running struct {
	cancel context.CancelFunc
	done   chan struct{}
	err    error // the goroutine's result, read after done
}

// run starts the parts, calls ready once all have started, and waits for
// ctx to end or a part to fail; then it stops every started part, last
// first, and returns the failure joined with what stopping returned.
func (g *group) run(ctx context.Context, ready func()) error {
	failed := make(chan string, len(g.parts))
	started := make([]*running, 0, len(g.parts))
	var err error
	for _, p := range g.parts {
		if ctx.Err() != nil {
			break // stopped while starting
		}
		if p.start != nil {
			if err = p.start(ctx); err != nil {
				err = fmt.Errorf("starting %s: %w", p.name, err)
				if ctx.Err() != nil {
					err = nil // stopped while starting: not a failure
				}
				break
			}
		}
		// A part's context is its own: it ends when the group stops the
		// part, in order, not when ctx ends.
		pctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		r := &running{cancel: cancel, done: make(chan struct{})}
		started = append(started, r)
		if p.run == nil {
			close(r.done)
			continue
		}
		go func() {
			defer close(r.done)
			r.err = p.run(pctx)
			if r.err != nil && pctx.Err() == nil {
				failed <- p.name
			}
		}()
	}
	if err == nil && ctx.Err() == nil {
		if ready != nil {
			ready()
		}
		select {
		case <-ctx.Done():
		case name := <-failed:
			g.logger.Error("a part of the service failed; stopping the others", logKeyPart, name)
		}
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), g.timeout)
	defer cancel()
	for i := len(started) - 1; i >= 0; i-- {
		p, r := g.parts[i], started[i]
		if p.stop != nil {
			if serr := p.stop(sctx); serr != nil {
				err = errors.Join(err, fmt.Errorf("stopping %s: %w", p.name, serr))
			}
		}
		r.cancel()
		<-r.done
		if r.err != nil && !errors.Is(r.err, context.Canceled) {
			err = errors.Join(err, fmt.Errorf("%s: %w", p.name, r.err))
		}
		g.logger.Debug("stopped", logKeyPart, p.name)
	}
	return err
}
