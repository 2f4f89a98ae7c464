package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/switchboard-mcp/switchboard/internal/app"
	"github.com/switchboard-mcp/switchboard/internal/config"
	"github.com/switchboard-mcp/switchboard/internal/redact"
)

// globals holds the flags every command accepts and what they lead to.
type globals struct {
	env *Env

	configPath string
	dataDir    string
	logLevel   string
	logFormat  string
}

func (g *globals) register(fs *pflag.FlagSet) {
	fs.StringVar(&g.configPath, "config", "", "config `file` (default: ./switchboard.yaml|yml|json, then $XDG_CONFIG_HOME/switchboard/config.*)")
	fs.StringVar(&g.dataDir, "data", "", "data `dir` for the database, tokens and logs (default ./.switchboard, or $SWITCHBOARD_DATA)")
	fs.StringVar(&g.logLevel, "log-level", "", "log `level`: debug, info, warn, error (default warn; info for serve)")
	fs.StringVar(&g.logFormat, "log-format", "", "log `format`: text or json")
}

// load reads and validates the configuration, with the global flags applied.
func (g *globals) load() (*config.Config, error) {
	cfg, err := g.loadFile(g.configPath)
	if err != nil {
		return nil, usageErr(err, loadHint(err, "fix the problems listed above; `switchboard config check` shows the effective config"))
	}
	return cfg, nil
}

// loadFile is load from path ("" searches), returning the problems as
// Load and Validate list them: serve reloads with it.
func (g *globals) loadFile(path string) (*config.Config, error) {
	cfg, err := config.Load(config.LoadOptions{
		Path:   path,
		Cwd:    g.env.Cwd,
		Getenv: g.env.Getenv,
	})
	if err != nil {
		return nil, err
	}
	if g.dataDir != "" {
		cfg.Data = g.dataDir
		if !filepath.IsAbs(cfg.Data) {
			cfg.Data = filepath.Join(g.env.Cwd, cfg.Data)
		}
	}
	if g.logLevel != "" {
		cfg.Log.Level = g.logLevel
	}
	if g.logFormat != "" {
		cfg.Log.Format = g.logFormat
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("invalid flags:\n%w", err)
	}
	return cfg, nil
}

// loadHint is the hint for a failed config load: none for a refused
// discovered file, whose error says what to do; otherwise hint.
func loadHint(err error, hint string) string {
	var ue *config.UntrustedError
	if errors.As(err, &ue) {
		return ""
	}
	return hint
}

// logger builds the process logger on stderr at defaultLevel unless
// --log-level or the config says otherwise. One-shot commands pass
// slog.LevelWarn so that their output stays readable; serve passes Info.
func (g *globals) logger(cfg *config.Config, defaultLevel slog.Level) *slog.Logger {
	return newLogger(g.env.Stderr, cfg.Log.Level, cfg.Log.Format, defaultLevel, redact.NewSecrets(cfg.SecretValues()...))
}

// newLogger returns the logger every part logs to. Each line passes
// through secrets, so a secret of the configuration (or a URL's user info)
// shows as REDACTED whichever part logged the error that quoted it.
func newLogger(w io.Writer, level, format string, def slog.Level, secrets *redact.Secrets) *slog.Logger {
	lvl := def
	if level != "" {
		_ = lvl.UnmarshalText([]byte(level)) // Validate has checked it
	}
	opts := &slog.HandlerOptions{Level: lvl}
	var h slog.Handler = slog.NewTextHandler(w, opts)
	if strings.EqualFold(format, "json") {
		h = slog.NewJSONHandler(w, opts)
	}
	return slog.New(redact.NewHandler(h, secrets))
}

// newApp builds the app from cfg, starting nothing. The caller must Close
// it.
func (g *globals) newApp(cfg *config.Config, logger *slog.Logger) (*app.App, error) {
	a, err := app.New(cfg, &app.Options{Logger: logger})
	if err != nil {
		return nil, usageErr(err, "")
	}
	return a, nil
}

// withApp makes the RunE of a one-shot command that needs the app but no
// tool server: it loads the config, builds the app, runs run and closes
// the app.
func (g *globals) withApp(run func(cmd *cobra.Command, a *app.App, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		cfg, err := g.load()
		if err != nil {
			return err
		}
		a, err := g.newApp(cfg, g.logger(cfg, slog.LevelWarn))
		if err != nil {
			return err
		}
		defer a.Close()
		return run(cmd, a, args)
	}
}

// withStore is [globals.withApp] for commands that work on the database:
// the store is open when run gets the app.
func (g *globals) withStore(run func(cmd *cobra.Command, a *app.App, args []string) error) func(*cobra.Command, []string) error {
	return g.withApp(func(cmd *cobra.Command, a *app.App, args []string) error {
		if _, err := a.Store(cmd.Context()); err != nil {
			return usageErr(err, "check database.url or the data directory (--data)")
		}
		return run(cmd, a, args)
	})
}

// start loads the config, builds the app and starts its servers (only the
// named ones when only is non-nil). The caller must Close the app.
func (g *globals) start(ctx context.Context, only []string) (*app.App, error) {
	cfg, err := g.load()
	if err != nil {
		return nil, err
	}
	return g.startWith(ctx, cfg, only)
}

// startWith is start with a config already loaded.
func (g *globals) startWith(ctx context.Context, cfg *config.Config, only []string) (*app.App, error) {
	a, err := app.New(cfg, &app.Options{
		Logger: g.logger(cfg, slog.LevelWarn),
		Only:   only,
	})
	if err != nil {
		return nil, usageErr(err, "")
	}
	if err := a.Start(ctx); err != nil {
		a.Close()
		return nil, err
	}
	return a, nil
}
