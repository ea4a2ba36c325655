package api

import (
	"path"
	"slices"
	"strings"
)

// DefaultEnv names the environment variables a client sends with a job by
// default, so that the job's commands find the tools the client's would.
// They are the PATH, and what Go, cgo, Python and Node read to find their
// tools and packages. A name ending in * is a prefix. The daemon's policy may narrow
// this list (daemon.Policy.AllowEnv).
var DefaultEnv = []string{
	"PATH",
	"GOFLAGS", "GOPATH", "GOROOT", "GOCACHE", "GOMODCACHE", "GOPROXY", "GOPRIVATE", "GONOSUMDB", "GOTOOLCHAIN", "GOEXPERIMENT",
	"CGO_*", "CC", "CXX", "PKG_CONFIG_PATH",
	"PYTHONPATH", "VIRTUAL_ENV",
	"NODE_PATH",
}

// EnvMatch reports whether the environment variable name matches one of
// patterns: a name, a prefix ending in *, or * for any.
func EnvMatch(patterns []string, name string) bool {
	return slices.ContainsFunc(patterns, func(p string) bool {
		ok, _ := path.Match(p, name)
		return ok && !strings.Contains(name, "/")
	})
}

// EnvOf returns the variables of environ (KEY=VALUE, as os.Environ gives)
// whose names match patterns, for jobspec.Spec.Env.
func EnvOf(patterns, environ []string) map[string]string {
	out := map[string]string{}
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if ok && k != "" && EnvMatch(patterns, k) {
			out[k] = v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
