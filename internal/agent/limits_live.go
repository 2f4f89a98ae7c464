package agent

// SetLimits replaces the runtime's limits (see [Options.Limits]) for the
// turns that start from now on; zero fields take their defaults as in New.
// A turn reads the limits once, when it starts, so a turn in flight keeps
// the tool-call budget and timeouts it began with. The configuration's
// reload calls it when the limits section changes.
func (r *Runtime) SetLimits(l Limits) {
	l = l.withDefaults()
	r.limits.Store(&l)
}

// currentLimits are the limits a turn starting now gets.
func (r *Runtime) currentLimits() Limits { return *r.limits.Load() }
