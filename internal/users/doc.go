// Package users is Switchboard's view of its users for the requests it
// serves: a [Directory] answers by API-key hash (authentication), by ID
// (permission checks, the HTTP API's and the gateway's alike) and whether
// any user exists (which ends anonymous access on loopback).
//
// The view is an immutable snapshot behind an atomic pointer, so a lookup
// that finds it fresh takes no lock and does no I/O. A stale view is
// refreshed by one read of the store shared by every caller waiting for it
// (singleflight), with no lock held across that read.
//
// Layer: beside gate (3). It imports store's records only; server and app
// use it.
package users
