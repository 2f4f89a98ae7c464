package cli

import (
	"context"
	"fmt"
	"log/slog"
	"net"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/internal/app"
	"github.com/switchboard-mcp/switchboard/internal/config"
	"github.com/switchboard-mcp/switchboard/internal/redact"
	"github.com/switchboard-mcp/switchboard/internal/version"
)

func newServeCmd(g *globals) *cobra.Command {
	var addr, pprofAddr string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the web UI, the HTTP API, the OpenAI-compatible API and /mcp",
		Long: `Starts the configured servers, opens the database (SQLite in the data
directory unless database.url names PostgreSQL) and serves:

  /                      the web UI: chat, servers, tools, audit
  /api/v1/...            the REST + SSE API (its OpenAPI document: /api/openapi.json)
  /v1/chat/completions   the OpenAI-compatible API; model = an agent or model name
  /mcp                   the whole catalogue as one MCP server (Streamable HTTP)
  /healthz /readyz /metrics

On a loopback address with no users, requests need no key. Anywhere else,
create users first (switchboard users add NAME) and send their keys as
"Authorization: Bearer sb_...". Without a configured model it still starts,
and the UI and /readyz say how to connect one. Ctrl-C stops it gracefully.

--pprof 127.0.0.1:6060 also serves Go's profiles (/debug/pprof/) on that
loopback address; when users exist, only an admin (users add --admin)
may read them (go tool pprof -http=: 'http://127.0.0.1:6060/debug/pprof/profile?seconds=20'
with the key in an Authorization header).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := g.load()
			if err != nil {
				return err
			}
			// --addr picks the listener only: the configuration stays
			// what the file says, so that a reload and `config check`
			// compare it with the file, not with the flag.
			listen := cfg.Server.Addr
			if addr != "" {
				listen = addr
			}
			// The log hides the secrets of every configuration applied
			// while serving, not only of the first.
			secrets := redact.NewSecrets(cfg.SecretValues()...)
			logger := newLogger(g.env.Stderr, cfg.Log.Level, cfg.Log.Format, slog.LevelInfo, secrets)
			a, err := app.New(cfg, &app.Options{Logger: logger, Reload: g.reloader(cfg, secrets)})
			if err != nil {
				return usageErr(err, "")
			}
			defer a.Close()
			ln, err := (&net.ListenConfig{}).Listen(cmd.Context(), "tcp", listen)
			if err != nil {
				return usageErr(fmt.Errorf("listening on %s: %w", listen, err), "choose another address with --addr")
			}
			var opts app.ServeOptions
			if pprofAddr != "" {
				if opts.Profiles, err = listenProfiles(cmd.Context(), pprofAddr); err != nil {
					ln.Close()
					return err
				}
			}
			if cfg.DefaultModel == "" {
				logger.Warn("no model configured: the UI and API answer with how to connect one", logKeyHint, app.NoModelHint)
			}
			// Serve starts the tool servers, and reports those not ready.
			err = a.Serve(cmd.Context(), ln, func(addr string) {
				fmt.Fprintf(cmd.ErrOrStderr(), "switchboard %s listening on http://%s (data: %s)\n", version.String(), addr, cfg.Data)
			}, &opts)
			if err != nil {
				return usageErr(err, "")
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&addr, "addr", "", "listen `address` (default server.addr, 127.0.0.1:8080)")
	cmd.Flags().StringVar(&pprofAddr, "pprof", "", "also serve Go profiles on this loopback `address` (admin only when users exist)")
	return cmd
}

// reloader reads the configuration again as serve did at start: the file
// it found then (an edit cannot move it elsewhere), the environment and the
// flags. With no file, there is nothing to follow and SIGHUP re-reads the
// environment.
func (g *globals) reloader(start *config.Config, secrets *redact.Secrets) func() (*config.Config, error) {
	return func() (*config.Config, error) {
		cfg, err := g.loadFile(start.Source)
		if err != nil {
			return nil, err
		}
		secrets.Add(cfg.SecretValues()...)
		return cfg, nil
	}
}

// listenProfiles listens on addr for --pprof, which must be loopback:
// the service serves its profiles there (app.ServeOptions.Profiles).
func listenProfiles(ctx context.Context, addr string) (net.Listener, error) {
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, usageErr(fmt.Errorf("listening for --pprof on %s: %w", addr, err), "choose another address, such as 127.0.0.1:6061")
	}
	if tcp, ok := ln.Addr().(*net.TCPAddr); !ok || !tcp.IP.IsLoopback() {
		ln.Close()
		return nil, usageErr(fmt.Errorf("--pprof %s is not a loopback address", addr), "profiles expose memory and tool arguments: use 127.0.0.1:PORT")
	}
	return ln, nil
}
