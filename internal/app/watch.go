package app

import (
	"context"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/switchboard-mcp/switchboard/internal/config"
)

// reloadDebounce is how long the watcher waits after the last event on the
// config file before reading it: an editor's save is a burst of events
// (write, chmod, rename of a temporary file), and one reload should follow.
const reloadDebounce = 250 * time.Millisecond

// followConfig reloads the configuration with load on SIGHUP and when the
// config file changes, until ctx ends. It watches the file's directory,
// not the file: editors and tools that replace the file by renaming a new
// one over it would leave a watch on the old file's inode blind. Events
// are kept for the file's own name and for Kubernetes' "..data" link,
// which a ConfigMap update swaps. Each reload is applied by [App.Reload]
// or refused by [App.refuse]; it runs on this goroutine, so reloads never
// overlap and a burst during one leads to one more.
func (a *App) followConfig(ctx context.Context, load func() (*config.Config, error)) {
	hup := make(chan os.Signal, 1) // a full buffer already means "reload"
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)

	var (
		events <-chan fsnotify.Event
		errs   <-chan error
		path   = a.cfg.Source
	)
	if path != "" {
		w, err := fsnotify.NewWatcher()
		if err == nil {
			defer w.Close()
			err = w.Add(filepath.Dir(path))
		}
		if err != nil {
			a.logger.Warn("not following the config file; reload with SIGHUP", logKeyFile, path, logKeyErr, err)
		} else {
			events, errs = w.Events, w.Errors
		}
	}
	// An edit made after the file was read at start and before the watch
	// began made no event here: read the file once now. When nothing
	// changed, this applies nothing and logs nothing.
	debounce := time.NewTimer(0)
	defer debounce.Stop()
	base := filepath.Base(path)
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
			a.reloadWith(ctx, load, "SIGHUP")
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			if name := filepath.Base(ev.Name); name == base || strings.HasPrefix(name, "..data") {
				debounce.Reset(reloadDebounce)
			}
		case err, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			a.logger.Warn("watching the config file", logKeyFile, path, logKeyErr, err)
		case <-debounce.C:
			a.reloadWith(ctx, load, "file changed")
		}
	}
}

// reloadWith reads the configuration with load and applies it together
// with the entries added at run time, or refuses it with every problem
// listed.
func (a *App) reloadWith(ctx context.Context, load func() (*config.Config, error), why string) {
	cfg, err := load()
	if err != nil {
		a.refuse(err)
		return
	}
	a.entries.apply(ctx, cfg, why)
}
