package builtin

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestCurrentTime(t *testing.T) {
	now := time.Date(2026, 3, 14, 8, 26, 53, 0, time.UTC)
	e := newEnv(t, &Options{Now: func() time.Time { return now }})
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"UTC", map[string]any{"timezone": "UTC"}, `rfc3339: 2026-03-14T08:26:53Z
human: Saturday, 14 March 2026, 08:26:53 UTC
weekday: Saturday
timezone: UTC (UTC, UTC+00:00)
unix: 1773476813`},
		{"Paris with a format", map[string]any{"timezone": "Europe/Paris", "format": "2006-01-02 15:04"}, `rfc3339: 2026-03-14T09:26:53+01:00
human: Saturday, 14 March 2026, 09:26:53 CET
weekday: Saturday
timezone: Europe/Paris (CET, UTC+01:00)
unix: 1773476813
formatted: 2026-03-14 09:26`},
		{"half-hour zone west of UTC", map[string]any{"timezone": "America/St_Johns"}, `rfc3339: 2026-03-14T05:56:53-02:30
human: Saturday, 14 March 2026, 05:56:53 NDT
weekday: Saturday
timezone: America/St_Johns (NDT, UTC-02:30)
unix: 1773476813`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := e.ok(t, nameCurrentTime, tt.args)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("current_time mismatch (-want +got):\n%s", diff)
			}
		})
	}
	// The default zone is the local one.
	if got := e.ok(t, nameCurrentTime, map[string]any{}); !cmp.Equal(got[:9], "rfc3339: ") {
		t.Errorf("default: %q", got)
	}
	for _, tz := range []string{"Mars/Olympus_Mons", "../../etc/passwd", "Europe/Paris\x00"} {
		e.fail(t, nameCurrentTime, map[string]any{"timezone": tz}, `use an IANA name such as "UTC", "Europe/London", "America/New_York" or "Asia/Tokyo"`)
	}
}
