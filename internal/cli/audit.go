package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/internal/app"
)

// auditJSON is one tool call as `switchboard audit --json` prints it.
type auditJSON struct {
	ID           string          `json:"id"`
	Time         time.Time       `json:"time"`
	Tool         string          `json:"tool"`
	Server       string          `json:"server"`
	Arguments    json.RawMessage `json:"arguments,omitempty"`
	Outcome      string          `json:"outcome"`
	Error        string          `json:"error,omitempty"`
	Approval     string          `json:"approval"`
	DurationMS   int64           `json:"durationMs"`
	ResultBytes  int64           `json:"resultBytes"`
	User         string          `json:"user"`
	Conversation string          `json:"conversation"`
	Agent        string          `json:"agent,omitempty"`
}

func newAuditCmd(g *globals) *cobra.Command {
	var (
		asJSON             bool
		tool, server, user string
		conversation       string
		outcome            string
		since              string
		limit              int
	)
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "Show the audit trail of tool calls, newest first",
		Long: `Every tool call is recorded before it runs (who, conversation, agent, tool,
server, arguments) and completed after (outcome, error, duration, result size,
approval). A call cut off by a crash shows as interrupted.

--since takes a duration back from now (24h, 30m) or a date (2026-11-22 or
RFC 3339). --json prints one JSON object per line.`,
		Args: cobra.NoArgs,
		PreRunE: func(*cobra.Command, []string) error {
			_, err := parseSince(since, time.Now())
			if err != nil {
				return usageErr(err, "--since takes 24h, 30m, 2026-11-22 or 2026-11-22T10:00:00Z")
			}
			return nil
		},
		RunE: g.withStore(func(cmd *cobra.Command, a *app.App, _ []string) error {
			from, err := parseSince(since, time.Now())
			if err != nil {
				return err // PreRunE has checked it
			}
			recs, err := a.Audit(cmd.Context(), app.AuditFilter{
				Tool: tool, Server: server, User: user, ConversationID: conversation,
				Since: from, Outcome: app.Outcome(outcome), Limit: limit,
			})
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetEscapeHTML(false)
				for _, r := range recs {
					if err := enc.Encode(auditJSON{
						ID: r.ID, Time: r.Time, Tool: r.Tool, Server: r.Server, Arguments: r.Arguments,
						Outcome: string(r.Outcome), Error: r.Error, Approval: string(r.Approval), DurationMS: r.DurationMS,
						ResultBytes: r.ResultBytes, User: r.User, Conversation: r.ConversationID, Agent: r.Agent,
					}); err != nil {
						return err
					}
				}
				return nil
			}
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "TIME\tTOOL\tOUTCOME\tAPPROVAL\tDURATION\tUSER\tCONVERSATION\tARGUMENTS")
			for _, r := range recs {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Time.Local().Format("2006-01-02 15:04:05"), r.Tool,
					r.Outcome, dash(string(r.Approval)), (time.Duration(r.DurationMS) * time.Millisecond).String(), dash(r.User),
					dash(shortID(r.ConversationID)), oneLine(string(r.Arguments), 60))
			}
			return tw.Flush()
		}),
	}
	f := cmd.Flags()
	f.BoolVar(&asJSON, "json", false, "print one JSON object per call: tool, server, arguments, outcome, approval, duration, user, conversation")
	f.StringVar(&tool, "tool", "", "only calls of tools matching this `glob`")
	f.StringVar(&server, "server", "", "only calls to this `server` (builtin for built-in tools)")
	f.StringVar(&user, "user", "", "only calls made by this `user`")
	f.StringVar(&conversation, "conversation", "", "only calls in this conversation `id`")
	f.StringVar(&outcome, "outcome", "", "only calls that ended so: ok, tool_error, error, denied, cancelled, timeout, interrupted, running")
	f.StringVar(&since, "since", "", "only calls after this: a `duration` back from now or a date")
	f.IntVar(&limit, "limit", 100, "at most this many calls")
	return cmd
}

// parseSince reads --since: a duration back from now, a date, or RFC 3339.
func parseSince(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if d, err := time.ParseDuration(s); err == nil {
		if d < 0 {
			d = -d
		}
		return now.Add(-d), nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("--since %q is neither a duration nor a date", s)
}

func shortID(id string) string {
	if len(id) > 13 && strings.Count(id, "-") == 4 {
		return id[:8] + "…" + id[len(id)-4:]
	}
	return id
}
