package store

import (
	"encoding/json"
	"time"
)

// PinStatus says whether a tool's current definition may be used.
type PinStatus string

const (
	// PinAccepted: the tool's definition is the accepted one.
	PinAccepted PinStatus = "accepted"
	// PinHeld: the server changed the tool's definition since it was
	// accepted; the tool is held (not offered, not callable) until an admin
	// accepts the change.
	PinHeld PinStatus = "held"
)

// Pin is the accepted definition of one tool of one server (trust on first
// use): the hash and JSON of the definition first seen or last accepted,
// and, while the tool is held, the changed definition waiting for an admin.
type Pin struct {
	// Server is the configured server name; Tool the tool's name there.
	// Together they identify the pin.
	Server string
	Tool   string
	// Kind is the server's kind ("mcp", "openapi").
	Kind string
	// Hash is the hex SHA-256 of Accepted, the accepted definition.
	Hash     string
	Accepted json.RawMessage
	// PendingHash and Pending are the changed definition while Status is
	// PinHeld; empty otherwise.
	PendingHash string
	Pending     json.RawMessage
	Status      PinStatus
	// CreatedAt is when the tool was first seen; UpdatedAt when the pin last
	// changed (held or accepted).
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Validate reports whether p can be created, as an [ErrInvalid] error.
func (p *Pin) Validate() error {
	switch {
	case p.Server == "" || p.Tool == "":
		return invalidf("pin: server and tool must be set")
	case p.Hash == "" || len(p.Accepted) == 0:
		return invalidf("pin %s/%s: hash and accepted definition must be set", p.Server, p.Tool)
	}
	return nil
}

// PinFilter selects pins for ListPins. Empty fields match everything.
type PinFilter struct {
	Server string
	Status PinStatus
}
