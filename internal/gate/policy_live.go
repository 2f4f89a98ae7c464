package gate

// SetPolicy replaces the approval policy for the calls decided from now
// on; a call already past its decision keeps it. The configuration's
// reload calls it when the approvals section changes. Safe for concurrent
// use with calls.
func (g *Gate) SetPolicy(p Policy) {
	p.Rules = append([]Rule(nil), p.Rules...)
	g.policy.Store(&p)
}
