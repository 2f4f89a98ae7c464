// Package security holds Switchboard's security test suite: tests that
// attack a running service from outside (abandoned sessions, stolen
// session IDs, resource exhaustion) through its real HTTP surface. It has
// no code of its own besides this comment; nothing imports it.
package security
