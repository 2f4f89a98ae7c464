package mcphost

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/sandbox"
)

// probeInitialize is a classic initialize request, answered by every
// server version, sent by hand so the probe sees stdout byte for byte.
const probeInitialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"switchboard-doctor","version":"0"}}}` + "\n"

// probeStdio starts the command with plain pipes, sends initialize and reads
// stdout until the answer, recording anything that is not JSON-RPC. It is a
// diagnostic, not the transport (package stdio), so that doctor reports stdout
// byte for byte. Lines that are not JSON-RPC before the answer are a
// warning: Switchboard skips them, as other clients do.
func probeStdio(ctx context.Context, sc *ServerConfig, timeout time.Duration, stderr io.Writer) (string, string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd, pg, err := stdioCommand(sc, stderr)
	if err != nil {
		return "", "check the command and its sandbox", err
	}
	cmd.WaitDelay = time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return "", "", err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", "", err
	}
	if err := sandbox.Start(cmd); err != nil {
		return "", "check the command and its working directory", fmt.Errorf("starting the process: %w", err)
	}
	defer func() {
		_ = stdin.Close()
		pg.Kill()
		_ = cmd.Wait()
	}()
	if _, err := io.WriteString(stdin, probeInitialize); err != nil {
		return "", "the process closed stdin at once; read its stderr", fmt.Errorf("writing initialize: %w", err)
	}

	type outcome struct {
		junk   []string
		answer bool
		err    error
	}
	done := make(chan outcome, 1) // the reader never blocks on sending its one result
	go func() {
		var o outcome
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			if line == "" {
				continue
			}
			var msg struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
			}
			if json.Unmarshal([]byte(line), &msg) != nil || msg.JSONRPC != "2.0" {
				if len(o.junk) < 5 {
					o.junk = append(o.junk, truncate(line, 200))
				}
				continue
			}
			if string(msg.ID) == "1" {
				o.answer = true
				break
			}
		}
		o.err = sc.Err()
		done <- o
	}()

	var o outcome
	select {
	case o = <-done:
	case <-ctx.Done():
		// Kill the process so the reader ends, then take its findings.
		pg.Kill()
		o = <-done
		if len(o.junk) > 0 {
			return "", "MCP stdio servers must answer with JSON-RPC on stdout; read its stderr below",
				fmt.Errorf("no answer to initialize within %v; it wrote only lines that are not JSON-RPC to stdout: %q", timeout, o.junk)
		}
		return "", "the server started but never answered; it may wait for input it does not get, or need an argument", fmt.Errorf("no answer to initialize within %v", timeout)
	}
	if !o.answer {
		err := errors.New("stdout closed before the initialize answer")
		if o.err != nil {
			err = fmt.Errorf("reading stdout: %w", o.err)
		}
		if len(o.junk) > 0 {
			err = fmt.Errorf("%w; it wrote only lines that are not JSON-RPC to stdout: %q", err, o.junk)
		}
		return "", "the process exited early; read its stderr below", err
	}
	detail := fmt.Sprintf("pid %d answered initialize", pg.PID())
	if len(o.junk) > 0 {
		return detail, "MCP stdio servers should write only JSON-RPC to stdout; make the server log to stderr (or pass its quiet flag)",
			warning{fmt.Sprintf("it also writes lines that are not JSON-RPC to stdout, which Switchboard skips: %q", o.junk)}
	}
	return detail, "", nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
