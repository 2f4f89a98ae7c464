package tools

import (
	"context"
	"strings"
	"testing"
)

// TestFuncWithoutRun checks that a Func with no function fails its calls
// with an error naming the tool, rather than panicking.
func TestFuncWithoutRun(t *testing.T) {
	f := &Func{Spec: Info{Name: "empty"}}
	if f.Info().Name != "empty" {
		t.Fatalf("Info = %+v", f.Info())
	}
	res, err := f.Call(context.Background(), &CallRequest{})
	if err == nil || res != nil || !strings.Contains(err.Error(), `"empty"`) {
		t.Fatalf("Call = %v, %v; want an error naming the tool", res, err)
	}
}
