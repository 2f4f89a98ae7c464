package gate

import "testing"

func TestPermitsModel(t *testing.T) {
	tests := []struct {
		name  string
		perms []string
		model string
		want  bool
	}{
		{"local caller", nil, "big", true},
		{"no model globs", []string{"files__*"}, "big", true},
		{"no globs at all", []string{}, "big", true},
		{"named model", []string{"*", "model:small"}, "small", true},
		{"other model", []string{"*", "model:small"}, "big", false},
		{"model glob", []string{"model:small-*"}, "small-2", true},
		{"tool star does not lift a model restriction", []string{"*", "model:small"}, "big", false},
		{"malformed glob matches nothing", []string{"model:[", "model:small"}, "[", false},
		{"a model glob is not a tool glob", []string{"model:*"}, "big", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Caller{ID: "u1", Permissions: tt.perms}
			if got := c.PermitsModel(tt.model); got != tt.want {
				t.Errorf("PermitsModel(%q) with %q = %v, want %v", tt.model, tt.perms, got, tt.want)
			}
		})
	}
	c := Caller{ID: "u1", Permissions: []string{"model:*"}}
	if c.Permits("big") {
		t.Error("a model glob permits a tool")
	}
}
