//go:build race

package mcphost_test

const raceEnabled = true
