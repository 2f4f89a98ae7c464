package app

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
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
	// Without a file, the places discovery looks are watched: a config
	// file that appears there is loaded as at start, so one that is not
	// trusted yet is refused with a line in the log and on /readyz.
	watched := []string{path}
	if path == "" {
		watched = a.cfg.Candidates
	}
	if len(watched) > 0 {
		w, err := fsnotify.NewWatcher()
		if err == nil {
			defer w.Close()
			err = watchDirs(w, watched, path != "")
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
	ours := func(name string) bool {
		if path == "" {
			return slices.Contains(watched, name)
		}
		base := filepath.Base(name)
		return base == filepath.Base(path) || strings.HasPrefix(base, "..data")
	}
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
			if ours(ev.Name) {
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
	a.logger.DebugContext(ctx, "reading the configuration", logKeyTrigger, why)
	cfg, err := load()
	if err != nil {
		a.refuse(err)
		return
	}
	a.entries.apply(ctx, cfg, why)
}

// watchDirs watches the directories of files. A file serve runs with
// must be watched (its directory exists); of discovery's candidates, only
// the directories that exist are, and at least one must.
func watchDirs(w *fsnotify.Watcher, files []string, must bool) error {
	var errs []error
	added := 0
	for _, dir := range slices.Compact(slices.Sorted(slices.Values(dirsOf(files)))) {
		if err := w.Add(dir); err != nil {
			errs = append(errs, err)
			continue
		}
		added++
	}
	if must || added == 0 {
		return errors.Join(errs...)
	}
	return nil
}

func dirsOf(files []string) []string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = filepath.Dir(f)
	}
	return out
}
