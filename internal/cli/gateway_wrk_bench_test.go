package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// wrkScript is the Lua script wrk runs against an MCP endpoint: every
// request a tools/call with an id unique in the session (thread number and
// count), every response checked for a result, the bad ones counted and
// the first printed. Its two %s are the headers, as Lua table entries, and
// the tool's name.
const wrkScript = `
wrk.method = "POST"
wrk.headers = { %s }
local threads = {}
local n = 0
function setup(thread)
  n = n + 1
  thread:set("tid", n)
  thread:set("bad", 0)
  table.insert(threads, thread)
end
local count = 0
function request()
  count = count + 1
  return wrk.format(nil, nil, nil, '{"jsonrpc":"2.0","id":"' .. tid .. '-' .. count ..
    '","method":"tools/call","params":{"name":"%s","arguments":{"message":"hello"}}}')
end
function response(status, headers, body)
  if status ~= 200 or not string.find(body, '"result"', 1, true) then
    bad = bad + 1
    if bad == 1 then io.stderr:write("wrk: bad response: " .. status .. " " .. body .. "\n") end
  end
end
function done(summary, latency, requests)
  local total = 0
  for _, t in ipairs(threads) do total = total + t:get("bad") end
  io.write("bad responses: " .. total .. "\n")
end
`

// wrkClient runs segments of c's tools/call with wrk: 2 threads, 16
// connections, one request in flight on each, on c's session and key.
func wrkClient(b *testing.B, wrk, dir string, c *httpClient) func(time.Duration) segmentResult {
	headers := []string{`["Content-Type"] = "application/json"`, `["Accept"] = "application/json, text/event-stream"`}
	if c.session != "" {
		headers = append(headers, fmt.Sprintf(`["Mcp-Session-Id"] = %q`, c.session), `["Mcp-Protocol-Version"] = "2025-11-25"`)
	}
	if c.key != "" {
		headers = append(headers, fmt.Sprintf(`["Authorization"] = "Bearer %s"`, c.key))
	}
	f, err := os.CreateTemp(dir, "wrk-*.lua")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := fmt.Fprintf(f, wrkScript, strings.Join(headers, ", "), c.tool); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	script := filepath.Clean(f.Name())
	return func(d time.Duration) segmentResult {
		secs := max(1, int(d.Round(time.Second).Seconds())) // wrk counts whole seconds
		cmd := exec.Command(wrk, "-t2", "-c16", "-d"+strconv.Itoa(secs)+"s", "-s", script, c.url)
		dieWithBenchmark(cmd)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, os.Stderr
		if err := cmd.Run(); err != nil {
			panic(fmt.Sprintf("wrk: %v: %s", err, out.String()))
		}
		calls, took, bad, err := parseWrk(out.String())
		if err != nil || bad > 0 {
			panic(fmt.Sprintf("wrk against %s: %v, %d bad responses:\n%s", c.url, err, bad, out.String()))
		}
		return segmentResult{calls, took, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), nil}
	}
}

var (
	wrkRequests = regexp.MustCompile(`(?m)^\s*(\d+) requests in ([0-9.]+)(us|ms|s|m)`)
	wrkBad      = regexp.MustCompile(`(?m)^bad responses: (\d+)`)
)

// parseWrk reads the requests made, the time they took and the bad
// responses from wrk's report.
func parseWrk(out string) (int64, time.Duration, int, error) {
	m := wrkRequests.FindStringSubmatch(out)
	bm := wrkBad.FindStringSubmatch(out)
	if m == nil || bm == nil {
		return 0, 0, 0, fmt.Errorf("unexpected wrk report")
	}
	n, _ := strconv.ParseInt(m[1], 10, 64)
	took, err := time.ParseDuration(m[2] + m[3])
	if err != nil {
		return 0, 0, 0, err
	}
	bad, _ := strconv.Atoi(bm[1])
	return n, took, bad, nil
}
