package mcphost

import (
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/redact"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// This file holds the supervisor's shared state: what other goroutines
// (Pool methods, tool calls, SDK handlers) read or signal.

func (s *server) setToolsLocked(ts []tools.Tool) {
	s.tools = ts
	s.status.Tools = len(ts)
}

func (s *server) publishTools() {
	if s.opts.OnToolsChanged == nil {
		return
	}
	s.mu.Lock()
	ts := slices.Clone(s.tools)
	s.mu.Unlock()
	if ts == nil {
		ts = []tools.Tool{} // ready with no tools is not the same as down
	}
	s.opts.OnToolsChanged(s.cfg.Name, ts)
}

// setState records a state change (and why, for failures) and reports it.
func (s *server) setState(st State, err error) {
	s.mu.Lock()
	if err != nil {
		// Errors quote URLs and command lines; the status is shown.
		s.status.LastError = redact.Text(err.Error())
	}
	changed := s.status.State != st
	s.status.State = st
	if changed {
		s.status.Since = time.Now()
	}
	s.mu.Unlock()
	if changed || err != nil {
		s.emitStatus()
	}
}

func (s *server) bumpRestarts() {
	s.mu.Lock()
	s.status.Restarts++
	s.mu.Unlock()
}

func (s *server) emitStatus() {
	if s.opts.OnStatus != nil {
		s.opts.OnStatus(s.snapshot())
	}
}

func (s *server) snapshot() Status {
	s.mu.Lock()
	st := s.status
	if s.cur != nil {
		st.PID = s.pid
	}
	s.mu.Unlock()
	st.Stderr = s.stderr.Lines()
	st.NonProtocolLines = s.noiseLines.Load()
	st.RootsRequests = s.rootsAsked.Load()
	return st
}

// noise records a line the server wrote to stdout that is not JSON-RPC: in
// the stderr tail, marked, and counted. The first one is logged. It runs on
// the connection's reader and never blocks.
func (s *server) noise(line []byte) {
	s.noiseLines.Add(1)
	s.stderr.addLine(stdoutMark, line)
	if s.noiseWarned.CompareAndSwap(false, true) {
		s.log.Warn("mcp server writes lines that are not JSON-RPC to stdout; skipping them (they are kept in its stderr tail)",
			"line", string(line[:min(len(line), 200)]))
	}
}

// stdoutMark starts the stderr-tail lines that came from stdout.
const stdoutMark = "[stdout] "

func (s *server) setPID(pid int) {
	s.mu.Lock()
	s.pid = pid
	s.mu.Unlock()
}

// current returns the live connection, or nil when the server is down.
func (s *server) current() *conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cur
}

// notifyChanged asks the supervisor to re-list; it never blocks, because it
// runs on the connection's reader goroutine.
func (s *server) notifyChanged() {
	select {
	case s.changed <- struct{}{}:
	default:
	}
}

// requestRestart asks the supervisor to reconnect now.
func (s *server) requestRestart() {
	select {
	case s.restart <- struct{}{}:
	default:
	}
}

// progress routes a progress notification to the call that asked for it.
func (s *server) progress(p *mcp.ProgressNotificationParams) {
	if p == nil {
		return
	}
	tok, ok := p.ProgressToken.(string)
	if !ok {
		return
	}
	if f, ok := s.progressFns.Load(tok); ok {
		f.(func(tools.Progress))(tools.Progress{Progress: p.Progress, Total: p.Total, Message: p.Message})
	}
}
