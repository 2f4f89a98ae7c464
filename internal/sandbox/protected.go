package sandbox

import "slices"

// hidden is every path p hides at this start: Hide and what Protected
// says now, without duplicates.
func (p *Policy) hidden() []string {
	out := append([]string{}, p.Hide...)
	if p.Protected != nil {
		out = append(out, p.Protected()...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
