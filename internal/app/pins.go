package app

import (
	"context"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/config"
	"github.com/switchboard-mcp/switchboard/internal/server"
	"github.com/switchboard-mcp/switchboard/internal/tools/pin"
)

// pinRecheckEvery is how often a serving process looks for held tools an
// admin accepted from elsewhere (`switchboard tools accept` is another
// process; with PostgreSQL, another replica).
const pinRecheckEvery = 5 * time.Second

// pinner builds the tool pinner: pins live in the store, and a server with
// pinning auto has its changes accepted on sight.
func (a *App) pinner() *pin.Pinner {
	open := func(ctx context.Context) (pin.Store, error) { return a.Store(ctx) }
	return pin.New(open, &pin.Options{
		Auto: func(server string) bool {
			if s, ok := a.config().MCPServers[server]; ok {
				return s.Pinning == config.PinningAuto
			}
			s, ok := a.config().OpenAPIServers[server]
			return ok && s.Pinning == config.PinningAuto
		},
		Logger: a.logger.With(logKeyComponent, "pin"),
	})
}

// ToolChanges lists the held tools with their diffs.
func (a *App) ToolChanges(ctx context.Context) ([]pin.Change, error) {
	st, err := a.Store(ctx)
	if err != nil {
		return nil, err
	}
	return pin.Changes(ctx, st)
}

// AcceptToolChanges accepts the selected held tools for user by and
// releases them in this process's catalogue at once.
func (a *App) AcceptToolChanges(ctx context.Context, sel pin.Selection, by string) ([]pin.Change, error) {
	st, err := a.Store(ctx)
	if err != nil {
		return nil, err
	}
	done, err := pin.Accept(ctx, st, sel, by)
	if len(done) > 0 {
		a.registry.Recheck()
	}
	return done, err
}

// WatchPins releases, every few seconds until ctx ends, the held tools
// accepted by another process (`switchboard tools accept`, another
// replica). It does nothing while no tool is held, and returns when ctx
// ends. Serve runs it; long-running commands that serve tools otherwise
// (`switchboard mcp`) run it too.
func (a *App) WatchPins(ctx context.Context) {
	t := time.NewTicker(pinRecheckEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if len(a.registry.Held()) > 0 {
				a.registry.Recheck()
			}
		}
	}
}

// pinsView is the app as the HTTP API's [server.Pins].
type pinsView struct{ a *App }

var _ server.Pins = pinsView{}

func (v pinsView) Changes(ctx context.Context) ([]pin.Change, error) { return v.a.ToolChanges(ctx) }

func (v pinsView) Accept(ctx context.Context, sel pin.Selection, by string) ([]pin.Change, error) {
	return v.a.AcceptToolChanges(ctx, sel, by)
}
