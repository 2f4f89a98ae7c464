package config

import (
	"net/url"
	"path/filepath"
	"strings"
)

// Uploads bounds the files people upload into a conversation (text, CSV,
// PDF, images; the type is read from the bytes) and says where tools find
// them as files. Every upload is kept in the store and offered to the
// conversation's model through the read_upload tool.
type Uploads struct {
	// MaxBytes bounds one upload; 0 means [DefaultUploadMaxBytes].
	MaxBytes int64 `json:"maxBytes,omitempty"`
	// Dir, when set, is a directory inside a root (builtin.roots, mcpRoots
	// or a server's roots) under which each upload is also written as a
	// file, in a directory of its conversation, so that file tools (a
	// filesystem MCP server, read_file) can read it; the model is told the
	// path. Every tool that reaches the root reaches these files, whoever
	// uploaded them (docs/SECURITY.md, "Uploads"). Empty: uploads are not
	// written as files.
	Dir string `json:"dir,omitempty"`
}

// Bounds of [Uploads].MaxBytes.
const (
	DefaultUploadMaxBytes = 10 << 20
	MaxUploadMaxBytes     = 100 << 20
)

// UploadMaxBytes returns the bound of one upload, the default filled in.
func (u Uploads) UploadMaxBytes() int64 {
	if u.MaxBytes <= 0 {
		return DefaultUploadMaxBytes
	}
	return u.MaxBytes
}

// validateUploads checks the bound, and that the directory lies inside a
// root that tools are given and outside Switchboard's data directory.
func (c *Config) validateUploads(p *problems) {
	u := c.Uploads
	if u.MaxBytes < 0 || u.MaxBytes > MaxUploadMaxBytes {
		p.add("uploads.maxBytes", "%d is out of range; give 1 to %d bytes, or leave it out for %d", u.MaxBytes, int64(MaxUploadMaxBytes), int64(DefaultUploadMaxBytes))
	}
	if u.Dir == "" {
		return
	}
	if !filepath.IsAbs(u.Dir) {
		p.add("uploads.dir", "%q is not an absolute path", u.Dir)
		return
	}
	if c.Data != "" && (within(filepath.Clean(c.Data), filepath.Clean(u.Dir)) || within(filepath.Clean(u.Dir), filepath.Clean(c.Data))) {
		p.add("uploads.dir", "%q overlaps the data directory %s, which tools must never reach; choose a directory inside a root and outside the data directory", u.Dir, c.Data)
		return
	}
	for _, r := range c.uploadRoots() {
		if within(filepath.Clean(r), filepath.Clean(u.Dir)) {
			return
		}
	}
	p.add("uploads.dir", "%q is inside no root, so no tool could read the files written there; choose a directory inside builtin.roots, mcpRoots or a server's roots", u.Dir)
}

// uploadRoots lists every root a tool may be given, as paths.
func (c *Config) uploadRoots() []string {
	out := append([]string(nil), c.Builtin.Roots...)
	add := func(roots []string) {
		for _, r := range roots {
			if strings.HasPrefix(r, "file://") {
				if pu, err := url.Parse(r); err == nil {
					r = pu.Path
				}
			}
			if filepath.IsAbs(r) {
				out = append(out, r)
			}
		}
	}
	add(c.MCPRoots)
	for _, s := range c.MCPServers {
		if !s.Disabled {
			add(s.Roots)
		}
	}
	return out
}
