package app

import (
	"runtime/debug"

	"github.com/switchboard-mcp/switchboard/internal/config"
)

// applyGC sets the collector's target and the soft memory limit of a
// long-running service from the config, where -1 leaves what the runtime
// took from GOGC and GOMEMLIMIT. They are the process's settings: only
// Serve, which owns the process for its lifetime, calls this.
func (a *App) applyGC(s config.Server) {
	gc := s.GCPercent
	if gc != -1 {
		debug.SetGCPercent(gc)
	} else {
		gc = debug.SetGCPercent(100) // reads the current value ...
		debug.SetGCPercent(gc)       // ... and puts it back
	}
	if s.MemoryLimitMB != -1 {
		limit := int64(s.MemoryLimitMB) << 20
		if s.MemoryLimitMB == 0 {
			limit = 1<<63 - 1 // the runtime's "no limit"
		}
		debug.SetMemoryLimit(limit)
	}
	a.logger.Info("garbage collector", logKeyGCPercent, gc, logKeyMemoryLimitMB, debug.SetMemoryLimit(-1)>>20) // -1 reads the limit
}
