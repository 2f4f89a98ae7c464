package config

import (
	"reflect"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Values of an entry's credentials key.
const (
	// CredentialsShared ("" too): every user's calls go out with the
	// entry's own headers, env or bearer.
	CredentialsShared = "shared"
	// CredentialsPerUser: each user's calls go out with the credential
	// that user connected (see [PerUser]); a user with none gets a tool
	// error saying where to connect.
	CredentialsPerUser = "perUser"
)

// PerUser says how a per-user entry takes each user's credential and, for
// MCP servers, how its per-user instances run. In a file it is `true`,
// `false` or a mapping of the fields below (which means true); `credentials:
// perUser` alone means a mapping with every field at its default.
type PerUser struct {
	// Enabled is the boolean form; a mapping sets it.
	Enabled bool `json:"-"`
	// Header is the request header a remote server or OpenAPI service gets
	// the user's value in; "" means Authorization.
	Header string `json:"header,omitempty"`
	// Prefix goes before the value in Header; absent means "Bearer " when
	// Header is Authorization and nothing otherwise.
	Prefix *string `json:"prefix,omitempty"`
	// Env is the variable a stdio server's process gets the user's value
	// in. "" means the user supplies nothing: each user still gets a
	// process of their own.
	Env string `json:"env,omitempty"`
	// IdleTimeout stops a user's instance after this long without a call
	// (default 10m); MaxInstances bounds the instances at once (default 20).
	IdleTimeout  time.Duration `json:"idleTimeout"`
	MaxInstances int           `json:"maxInstances"`
}

// PerUserOf returns the per-user settings of an entry with the given
// credentials and perUser keys, or nil when its credentials are shared.
func PerUserOf(credentials string, pu *PerUser) *PerUser {
	if credentials != CredentialsPerUser && (pu == nil || !pu.Enabled) {
		return nil
	}
	out := PerUser{Enabled: true}
	if pu != nil {
		out = *pu
		out.Enabled = true
	}
	if out.Header == "" {
		out.Header = "Authorization"
	}
	if out.Prefix == nil {
		prefix := ""
		if strings.EqualFold(out.Header, "Authorization") {
			prefix = "Bearer "
		}
		out.Prefix = &prefix
	}
	return &out
}

var perUserType = reflect.TypeFor[PerUser]()

// perUser accepts true, false, or a mapping of PerUser's fields, which
// means true.
func (d *decoder) perUser(path string, n *yaml.Node, v reflect.Value) {
	switch {
	case n.Kind == yaml.ScalarNode && n.ShortTag() == "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
			d.errorf(path, n, "expected true, false or a mapping with header, prefix, env, idleTimeout, maxInstances; got %q", n.Value)
			return
		}
		v.Set(reflect.ValueOf(PerUser{Enabled: b}))
	case n.Kind == yaml.MappingNode:
		d.structure(path, n, v)
		v.FieldByName("Enabled").SetBool(true)
	default:
		d.errorf(path, n, "expected true, false or a mapping with header, prefix, env, idleTimeout, maxInstances; got %s", describe(n))
	}
}

// checkPerUser validates an entry's credentials and perUser keys. stdio
// says whether the entry runs a local program (env applies) or reaches a
// remote one (header and prefix apply).
func checkPerUser(p *problems, at, credentials string, pu *PerUser, stdio bool) {
	switch credentials {
	case "", CredentialsShared, CredentialsPerUser:
	default:
		p.add(at+".credentials", "unknown value %q; use %s (each user connects their own) or %s (the default)", credentials, CredentialsPerUser, CredentialsShared)
	}
	if pu == nil {
		return
	}
	if pu.Enabled && credentials == CredentialsShared {
		p.add(at+".perUser", "credentials is %s but perUser is set; remove one", CredentialsShared)
	}
	if stdio && (pu.Header != "" || pu.Prefix != nil) {
		p.add(at+".perUser", "header and prefix apply to remote servers; a stdio server takes the user's value in env")
	}
	if !stdio && pu.Env != "" {
		p.add(at+".perUser.env", "env applies to stdio servers; a remote server takes the user's value in header")
	}
	if pu.Env != "" && strings.ContainsAny(pu.Env, "=\x00") {
		p.add(at+".perUser.env", "invalid variable name %q", pu.Env)
	}
	if pu.Header != "" {
		checkHeaders(p, at+".perUser.header", map[string]string{pu.Header: ""})
	}
	checkNonNegative(p, at+".perUser.idleTimeout", pu.IdleTimeout)
	if pu.MaxInstances < 0 {
		p.add(at+".perUser.maxInstances", "must not be negative; 0 means the default (20)")
	}
}
