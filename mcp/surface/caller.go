package surface

import "context"

type callerKey struct{}

// ContextWithCaller returns ctx carrying the app a request comes from. The
// HTTP layer puts it there from the bearer key; the tools read it.
func ContextWithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerFromContext returns the app ctx carries, if any.
func CallerFromContext(ctx context.Context) (Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(Caller)
	return c, ok
}
