package mcphost_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// floorClient is the smallest MCP client that can call a tool over stdio:
// newline-delimited JSON-RPC, one writer lock, one reader goroutine that hands
// each response to the caller waiting on its id. It skips everything a real
// host does (schemas, list_changed, reconnects, cancellation), so the
// benchmarks use it as the floor: the cost of the pipe and the server alone.
// Tests never use it to judge behaviour.
type floorClient struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser

	wmu sync.Mutex // wmu guards w and serialises whole messages
	w   *bufio.Writer

	nextID atomic.Int64

	mu      sync.Mutex // mu guards pending and readErr
	pending map[int64]chan floorResponse
	readErr error

	readerDone chan struct{}
}

type floorResponse struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// floorMessage is anything the server sends: a response (ID set, no
// Method), a request from the server (both) or a notification (Method only).
type floorMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	floorResponse
}

// startFloorClient starts command and completes the MCP handshake.
func startFloorClient(ctx context.Context, env []string, command string, args ...string) (*floorClient, error) {
	cmd := exec.Command(command, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = io.Discard
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("opening stdin of %s: %w", command, err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("opening stdout of %s: %w", command, err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", command, err)
	}
	c := &floorClient{
		cmd:        cmd,
		stdin:      stdin,
		w:          bufio.NewWriterSize(stdin, 64<<10),
		pending:    make(map[int64]chan floorResponse),
		readerDone: make(chan struct{}),
	}
	go c.read(stdout)

	init := map[string]any{
		"protocolVersion": "2025-06-18",
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "switchboard-floor", "version": "0"},
	}
	if _, err := c.request(ctx, "initialize", init); err != nil {
		c.close()
		return nil, fmt.Errorf("initializing %s: %w", command, err)
	}
	if err := c.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

// read dispatches responses by id until stdout ends. Requests from the
// server get a method-not-found error so the server never waits on us.
func (c *floorClient) read(stdout io.Reader) {
	defer close(c.readerDone)
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	var err error
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var m floorMessage
		if err = json.Unmarshal(line, &m); err != nil {
			err = fmt.Errorf("decoding server message %q: %w", line, err)
			break
		}
		switch {
		case m.Method != "" && len(m.ID) > 0:
			_ = c.send(map[string]any{
				"jsonrpc": "2.0", "id": m.ID,
				"error": map[string]any{"code": -32601, "message": "method not found"},
			})
		case m.Method == "" && len(m.ID) > 0:
			id, perr := strconv.ParseInt(string(m.ID), 10, 64)
			if perr != nil {
				continue
			}
			c.mu.Lock()
			ch := c.pending[id]
			delete(c.pending, id)
			c.mu.Unlock()
			if ch != nil {
				ch <- m.floorResponse
			}
		}
	}
	if err == nil {
		err = sc.Err()
	}
	if err == nil {
		err = io.EOF
	}
	c.mu.Lock()
	c.readErr = err
	for id, ch := range c.pending {
		close(ch)
		delete(c.pending, id)
	}
	c.mu.Unlock()
}

func (c *floorClient) send(msg any) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return fmt.Errorf("encoding message: %w", err)
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.w.Write(b)
	c.w.WriteByte('\n')
	if err := c.w.Flush(); err != nil {
		return fmt.Errorf("writing to server: %w", err)
	}
	return nil
}

func (c *floorClient) request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	id := c.nextID.Add(1)
	ch := make(chan floorResponse, 1) // buffered: the reader never blocks on a caller that left
	c.mu.Lock()
	if c.readErr != nil {
		err := c.readErr
		c.mu.Unlock()
		return nil, fmt.Errorf("calling %s: connection closed: %w", method, err)
	}
	c.pending[id] = ch
	c.mu.Unlock()

	msg := map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}
	if err := c.send(msg); err != nil {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
		return nil, err
	}
	select {
	case r, ok := <-ch:
		if !ok {
			return nil, fmt.Errorf("calling %s: connection closed", method)
		}
		if r.Error != nil {
			return nil, fmt.Errorf("calling %s: server error %d: %s", method, r.Error.Code, r.Error.Message)
		}
		return r.Result, nil
	case <-ctx.Done():
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
		return nil, ctx.Err()
	}
}

// callTool calls tools/call and returns the raw result.
func (c *floorClient) callTool(ctx context.Context, name string, args any) (json.RawMessage, error) {
	return c.request(ctx, "tools/call", map[string]any{"name": name, "arguments": args})
}

// close ends the server the way a polite host does (stdin closed, then a
// kill if it lingers) and waits for the reader goroutine.
func (c *floorClient) close() error {
	c.stdin.Close()
	// Wait closes stdout, so the reader must be done before Wait is called.
	select {
	case <-c.readerDone:
	case <-time.After(2 * time.Second):
		c.cmd.Process.Kill()
		<-c.readerDone
	}
	err := c.cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return nil // a non-zero exit after stdin closed is fine for a benchmark peer
	}
	return err
}
