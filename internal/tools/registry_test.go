package tools

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func names(es []Entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Name)
	}
	return out
}

func TestRegistryListOrderAndLookup(t *testing.T) {
	r := NewRegistry(nil)
	r.Set(Source{Kind: KindMCP, Server: "zeta"}, []Tool{newFake("b", ""), newFake("a", "")})
	r.Set(Source{Kind: KindOpenAPI, Server: "alpha"}, []Tool{newFake("op.get", "")})
	r.Set(Source{Kind: KindBuiltin}, []Tool{newFake("write_file", ""), newFake("read_file", "")})

	want := []string{"read_file", "write_file", "alpha__op_get_" + hex8(Origin{KindOpenAPI, "alpha", "op.get"}), "zeta__a", "zeta__b"}
	if diff := cmp.Diff(want, names(r.List())); diff != "" {
		t.Errorf("List mismatch (-want +got):\n%s", diff)
	}
	e, ok := r.Lookup(want[2])
	if !ok {
		t.Fatalf("Lookup(%q) found nothing", want[2])
	}
	if diff := cmp.Diff(Origin{KindOpenAPI, "alpha", "op.get"}, e.Origin); diff != "" {
		t.Errorf("Lookup origin mismatch (-want +got):\n%s", diff)
	}
	if _, ok := r.Lookup("nope"); ok {
		t.Error("Lookup(nope) found a tool")
	}
}

func TestRegistrySetReplacesAndRemoves(t *testing.T) {
	r := NewRegistry(nil)
	src := Source{Kind: KindMCP, Server: "s"}
	v0 := r.Version()
	ch := r.Changed()
	r.Set(src, []Tool{newFake("a", ""), newFake("b", ""), nil, newFake("a", `{"type":"object","required":["x"]}`)})
	select {
	case <-ch:
	default:
		t.Fatal("Changed channel not closed after Set")
	}
	if r.Version() != v0+1 {
		t.Errorf("Version = %d, want %d", r.Version(), v0+1)
	}
	if diff := cmp.Diff([]string{"s__a", "s__b"}, names(r.List())); diff != "" {
		t.Errorf("List mismatch (-want +got):\n%s", diff)
	}
	// The first of two same-named tools is kept: it takes no required x.
	res, err := r.Call(context.Background(), "s__a", nil)
	if err != nil || res.IsError {
		t.Errorf("Call(s__a) = %+v, %v; want the first tool's success", res, err)
	}

	r.Set(src, []Tool{newFake("c", "")})
	if diff := cmp.Diff([]string{"s__c"}, names(r.List())); diff != "" {
		t.Errorf("List after replace mismatch (-want +got):\n%s", diff)
	}
	r.Set(src, nil)
	if got := r.List(); len(got) != 0 {
		t.Errorf("List after removal = %v, want empty", names(got))
	}
	v := r.Version()
	ch = r.Changed()
	r.Set(Source{Kind: KindMCP, Server: "absent"}, nil)
	select {
	case <-ch:
		t.Error("removing an absent source signalled a change")
	default:
	}
	if r.Version() != v {
		t.Errorf("Version changed from %d to %d on a no-op", v, r.Version())
	}
}

func TestRegistryNotFound(t *testing.T) {
	r := NewRegistry(nil)
	_, err := r.Call(context.Background(), "ghost", nil)
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("Call(ghost) error = %v, want ErrNotFound", err)
	}
}

func TestRegistryToolError(t *testing.T) {
	r := NewRegistry(nil)
	f := newFake("t", "")
	f.Run = func(context.Context, *CallRequest) (*Result, error) { return nil, ErrUnavailable }
	r.Set(Source{Kind: KindMCP, Server: "s"}, []Tool{f})
	_, err := r.Call(context.Background(), "s__t", nil)
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Call error = %v, want ErrUnavailable", err)
	}
}

// TestRegistryConcurrent runs Set, List, Lookup and Call together; the race
// detector does the checking.
func TestRegistryConcurrent(t *testing.T) {
	r := NewRegistry(nil)
	var wg sync.WaitGroup
	for s := range 4 {
		wg.Go(func() {
			src := Source{Kind: KindMCP, Server: fmt.Sprintf("s%d", s)}
			for i := range 50 {
				r.Set(src, []Tool{newFake("t", `{"type":"object","properties":{"n":{"type":"integer"}}}`), newFake(fmt.Sprint("u", i), "")})
			}
		})
	}
	for range 4 {
		wg.Go(func() {
			for range 200 {
				for _, e := range r.List() {
					if _, err := r.Call(context.Background(), e.Name, &CallRequest{Arguments: []byte(`{"n":1}`)}); err != nil && !errors.Is(err, ErrNotFound) {
						t.Errorf("Call(%s): %v", e.Name, err)
					}
				}
				select {
				case <-r.Changed():
				default:
				}
			}
		})
	}
	wg.Wait()
}

// TestRegistryNamesIndependentOfSetOrder connects the same servers in every
// order and expects the same catalogue each time.
func TestRegistryNamesIndependentOfSetOrder(t *testing.T) {
	sources := []struct {
		src   Source
		tools []string
	}{
		{Source{Kind: KindBuiltin}, []string{"read_file", "a__b"}},
		{Source{Kind: KindMCP, Server: "a"}, []string{"b__c", "x.y"}},
		{Source{Kind: KindMCP, Server: "a__b"}, []string{"c"}},
		{Source{Kind: KindOpenAPI, Server: "a"}, []string{"b__c"}},
		{Source{Kind: KindMCP, Server: "日本"}, []string{"ツール", "1st"}},
	}
	var want []Entry
	var r *Registry
	for _, perm := range [][]int{{0, 1, 2, 3, 4}, {4, 3, 2, 1, 0}, {2, 0, 4, 1, 3}, {3, 4, 0, 2, 1}} {
		r = NewRegistry(nil)
		for _, i := range perm {
			var ts []Tool
			for _, name := range sources[i].tools {
				ts = append(ts, newFake(name, ""))
			}
			r.Set(sources[i].src, ts)
		}
		got := r.List()
		if want == nil {
			want = got
			continue
		}
		if diff := cmp.Diff(names(want), names(got)); diff != "" {
			t.Errorf("order %v: names mismatch (-want +got):\n%s", perm, diff)
		}
	}
	for _, e := range want {
		if !ValidName(e.Name) {
			t.Errorf("invalid name %q for %v", e.Name, e.Origin)
		}
		if back, ok := r.Lookup(e.Name); !ok || back.Origin != e.Origin {
			t.Errorf("Lookup(%q) = %v, want %v", e.Name, back.Origin, e.Origin)
		}
	}
}
