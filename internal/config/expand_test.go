package config

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestExpand(t *testing.T) {
	env := envMap{"HOST": "example.com", "PORT": "8443", "EMPTY": "", "DOLLAR": "$HOME"}
	tests := []struct {
		in        string
		want      string
		wantUnset []string
		wantErr   string
	}{
		{in: "plain", want: "plain"},
		{in: "${HOST}", want: "example.com"},
		{in: "https://${HOST}:${PORT}/mcp", want: "https://example.com:8443/mcp"},
		{in: "${MISSING}", want: "", wantUnset: []string{"MISSING"}},
		{in: "a${MISSING}b", want: "ab", wantUnset: []string{"MISSING"}},
		{in: "${EMPTY}", want: "", wantUnset: []string{"EMPTY"}},
		{in: "${MISSING:-fallback}", want: "fallback"},
		{in: "${HOST:-fallback}", want: "example.com"},
		{in: "${EMPTY:-used when empty}", want: "used when empty"},
		{in: "${MISSING:-}", want: ""},
		{in: "${MISSING:-${HOST}}", want: "example.com"},
		{in: "${MISSING:-${ALSO_MISSING}}", want: "", wantUnset: []string{"ALSO_MISSING"}},
		{in: "${MISSING:-a}b}", want: "ab}"},
		{in: "${MISSING:-{x}}", want: "{x}"},
		{in: "${MISSING:-$${HOST}}", want: "${HOST}"},
		{in: "$$", want: "$"},
		{in: "$${HOST}", want: "${HOST}"},
		{in: "$$$${HOST}", want: "$${HOST}"},
		{in: "$$${HOST}", want: "$example.com"},
		{in: "costs $5 or $", want: "costs $5 or $"},
		{in: "$HOST", want: "$HOST"},
		{in: "${DOLLAR}", want: "$HOME"}, // values are not expanded again
		{in: "${_x1}", want: "", wantUnset: []string{"_x1"}},
		{in: "Bearer ${env:HOST}", want: "Bearer example.com"},
		{in: "${env:MISSING}", want: "", wantUnset: []string{"MISSING"}},
		{in: "${env:MISSING:-d}", want: "d"},
		{in: "${env:-d}", want: "d"},
		{in: "${env}", want: "", wantUnset: []string{"env"}},
		{in: "${input:token}", wantErr: `unsupported reference "${input:token}": write ${NAME}, ${env:NAME} or ${NAME:-default}, where NAME is an environment variable`},
		{in: "${}", wantErr: `invalid reference "${}": a variable name starts with a letter or _; write $$ for a literal $`},
		{in: "${9}", wantErr: `invalid reference "${9}": a variable name starts with a letter or _; write $$ for a literal $`},
		{in: "${HOST", wantErr: `unterminated reference "${HOST": add the closing }`},
		{in: "${HOST:-x", wantErr: `unterminated reference "${HOST:-x": add the closing }`},
		{in: "${HOST:=x}", wantErr: `unsupported reference "${HOST:=x}": write ${NAME}, ${env:NAME} or ${NAME:-default}, where NAME is an environment variable`},
		{in: "${A B}", wantErr: `unsupported reference "${A B}": write ${NAME}, ${env:NAME} or ${NAME:-default}, where NAME is an environment variable`},
		{in: "${MISSING:-${9}}", wantErr: `invalid reference "${9}": a variable name starts with a letter or _; write $$ for a literal $`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, refs, err := expand(tt.in, env.get)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("expand error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("expand: %v", err)
			}
			if got != tt.want {
				t.Errorf("expand = %q, want %q", got, tt.want)
			}
			var unset []string
			for _, r := range refs {
				if !r.set {
					unset = append(unset, r.name)
				}
			}
			if diff := cmp.Diff(tt.wantUnset, unset); diff != "" {
				t.Errorf("unset mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadExpandsNestedValues(t *testing.T) {
	env := envMap{"TOKEN": "t0k", "DIR": "/srv/docs", "HOST": "mcp.example.com"}
	c := mustLoad(t, "switchboard.yaml", `
mcpServers:
  files:
    command: ${CMD:-npx}
    args: [-y, server, "${DIR}", "$$literal"]
    env: {API_TOKEN: "${TOKEN}", PLAIN: "x${NOPE:-y}z"}
  remote:
    url: https://${HOST}/mcp
    headers: {Authorization: "Bearer ${TOKEN}"}
approvals:
  rules: [{server: "${SRV:-remote}", tool: "*", policy: allow}]
limits: {turnTimeout: "${TURN:-45s}"}
`, env)
	files, remote := c.MCPServers["files"], c.MCPServers["remote"]
	got := []any{files.Command, files.Args, files.Env, remote.URL, remote.Headers, c.Approvals.Rules[0].Server, c.Limits.TurnTimeout}
	want := []any{
		"npx",
		[]string{"-y", "server", "/srv/docs", "$literal"},
		map[string]string{"API_TOKEN": "t0k", "PLAIN": "xyz"},
		"https://mcp.example.com/mcp",
		map[string]string{"Authorization": "Bearer t0k"},
		"remote",
		45 * time.Second,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("expanded values mismatch (-want +got):\n%s", diff)
	}
}

func TestValidateNamesUnsetVariables(t *testing.T) {
	_, err := loadText(t, "switchboard.yaml", `
mcpServers:
  remote:
    url: https://example.com/mcp
    headers: {Authorization: "Bearer ${TOKEN}"}
  local:
    command: srv
    args: [--key, "${KEY}"]
  off:
    command: srv
    disabled: true
    env: {X: "${NOT_NEEDED}"}
openapiServers:
  mail: {url: "http://localhost:8000", bearer: "${MAIL_TOKEN}", disabled: true}
models:
  m: {provider: openai, model: "${MODEL}", timeout: "${MODEL_TIMEOUT}"}
`, envMap{})
	want := []string{
		"mcpServers.remote.headers.Authorization: uses ${TOKEN}, which is not set; set it in the environment or write ${TOKEN:-default}",
		"mcpServers.local.args[1]: uses ${KEY}, which is not set; set it in the environment or write ${KEY:-default}",
		"models.m.model: uses ${MODEL}, which is not set; set it in the environment or write ${MODEL:-default}",
		"models.m.timeout: uses ${MODEL_TIMEOUT}, which is not set; set it in the environment or write ${MODEL_TIMEOUT:-default}",
		"models.m.model: set the provider's model id, such as gpt-4o-mini",
	}
	if diff := cmp.Diff(want, problemsOf(err)); diff != "" {
		t.Errorf("problems mismatch (-want +got):\n%s", diff)
	}
}
