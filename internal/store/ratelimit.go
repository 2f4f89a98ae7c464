package store

import (
	"fmt"
	"math"
	"time"
)

// RateLimitError is a request refused by a rate limit. What says what was
// counted ("requests", "tool calls"); RetryAfter is how long until the
// limit lets the user through again.
type RateLimitError struct {
	What       string
	RetryAfter time.Duration
}

func (e *RateLimitError) Error() string {
	return fmt.Sprintf("too many %s for this user; retry in %d s", e.What, e.RetrySeconds())
}

// RetrySeconds is RetryAfter in whole seconds, rounded up, at least 1 (for
// a Retry-After header).
func (e *RateLimitError) RetrySeconds() int {
	return max(1, int(math.Ceil(e.RetryAfter.Seconds())))
}
