package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	// The zone database is embedded (about 450 KB) so that named zones work on
	// machines without /usr/share/zoneinfo, such as minimal containers; the
	// system copy is still preferred when present.
	_ "time/tzdata"

	"github.com/switchboard-mcp/switchboard/internal/tools"
)

//go:embed current_time.md
var currentTimeDoc string

type currentTimeArgs struct {
	Timezone string `json:"timezone"`
	Format   string `json:"format"`
}

func newCurrentTime(now func() time.Time) *tool {
	return &tool{
		info: tools.Info{
			Name:        nameCurrentTime,
			Title:       "Current time",
			Description: currentTimeDoc,
			InputSchema: schema(`{"type":"object","properties":{` +
				`"timezone":{"type":"string","description":"IANA time zone name, e.g. Europe/Paris or UTC. Default: the server's local zone."},` +
				`"format":{"type":"string","description":"Optional extra Go time layout, e.g. 2006-01-02 15:04."}` +
				`},"additionalProperties":false}`),
			Annotations: readOnly("Current time"),
		},
		run: func(ctx context.Context, raw json.RawMessage) (*tools.Result, error) {
			var a currentTimeArgs
			if err := decodeArgs(nameCurrentTime, raw, &a); err != nil {
				return errResult(err), nil
			}
			text, err := currentTime(now(), a)
			if err != nil {
				return errResult(err), nil
			}
			return tools.TextResult(text), nil
		},
	}
}

func currentTime(now time.Time, a currentTimeArgs) (string, error) {
	loc := time.Local
	if tz := strings.TrimSpace(a.Timezone); tz != "" {
		var err error
		if loc, err = time.LoadLocation(tz); err != nil {
			return "", fmt.Errorf("unknown time zone %q; use an IANA name such as \"UTC\", \"Europe/London\", \"America/New_York\" or \"Asia/Tokyo\"", a.Timezone)
		}
	}
	if len(a.Format) > 200 {
		return "", fmt.Errorf("format is %d characters long; use at most 200", len(a.Format))
	}
	t := now.In(loc)
	abbr, offset := t.Zone()
	var b strings.Builder
	fmt.Fprintf(&b, "rfc3339: %s\n", t.Format(time.RFC3339))
	fmt.Fprintf(&b, "human: %s\n", t.Format("Monday, 2 January 2006, 15:04:05 MST"))
	fmt.Fprintf(&b, "weekday: %s\n", t.Weekday())
	fmt.Fprintf(&b, "timezone: %s (%s, UTC%s)\n", loc, abbr, formatOffset(offset))
	fmt.Fprintf(&b, "unix: %d", t.Unix())
	if a.Format != "" {
		fmt.Fprintf(&b, "\nformatted: %s", t.Format(a.Format))
	}
	return b.String(), nil
}

func formatOffset(sec int) string {
	sign := "+"
	if sec < 0 {
		sign, sec = "-", -sec
	}
	return fmt.Sprintf("%s%02d:%02d", sign, sec/3600, sec%3600/60)
}
