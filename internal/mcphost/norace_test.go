//go:build !race

package mcphost_test

const raceEnabled = false
