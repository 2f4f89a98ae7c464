package redact

import (
	"context"
	"log/slog"
)

// Handler is a [slog.Handler] that passes every string and error attribute
// (and the message) through a [Secrets] before the next handler sees it,
// so that no log line shows a secret whichever package logged it.
type Handler struct {
	next    slog.Handler
	secrets *Secrets
}

// NewHandler returns a Handler writing to next. secrets may be nil.
func NewHandler(next slog.Handler, secrets *Secrets) *Handler {
	return &Handler{next: next, secrets: secrets}
}

var _ slog.Handler = (*Handler)(nil)

// Enabled implements [slog.Handler].
func (h *Handler) Enabled(ctx context.Context, l slog.Level) bool { return h.next.Enabled(ctx, l) }

// Handle implements [slog.Handler].
func (h *Handler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, h.secrets.Text(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a))
		return true
	})
	return h.next.Handle(ctx, out)
}

// WithAttrs implements [slog.Handler].
func (h *Handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	clean := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		clean[i] = h.attr(a)
	}
	return &Handler{next: h.next.WithAttrs(clean), secrets: h.secrets}
}

// WithGroup implements [slog.Handler].
func (h *Handler) WithGroup(name string) slog.Handler {
	return &Handler{next: h.next.WithGroup(name), secrets: h.secrets}
}

func (h *Handler) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, h.secrets.Text(v.String()))
	case slog.KindGroup:
		g := v.Group()
		clean := make([]any, len(g))
		for i, ga := range g {
			clean[i] = h.attr(ga)
		}
		return slog.Group(a.Key, clean...)
	case slog.KindAny:
		switch x := v.Any().(type) {
		case error:
			return slog.String(a.Key, h.secrets.Text(x.Error()))
		case []string:
			clean := make([]string, len(x))
			for i, s := range x {
				clean[i] = h.secrets.Text(s)
			}
			return slog.Any(a.Key, clean)
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}
