package daemon

import (
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/optimizer-dev/optimizer/api"
	"github.com/optimizer-dev/optimizer/evaluator"
)

// Policy is what a job may ask of the daemon beyond its defaults. The
// person who starts the daemon sets it with flags; no request can widen it.
// Its zero value is the default: candidates run only in the sandbox, and no
// job runs a setup command, copies ignored files or sets the environment.
type Policy struct {
	// AllowUnsandboxed (--allow-unsandboxed) lets candidates run outside
	// the sandbox: a job's "sandbox": "off", or "auto" on a machine where
	// bwrap does not work.
	AllowUnsandboxed bool
	// AllowSandboxNet (--allow-sandbox-net) lets a job's sandboxed
	// processes use the network, and so the host's abstract sockets.
	AllowSandboxNet bool
	// AllowSetup (--allow-setup) lets a job run a setup command, which runs
	// outside the sandbox in every slot.
	AllowSetup bool
	// AllowCopyIgnored (--allow-copy-ignored) lets a job copy ignored files
	// of the user's working tree into its slots.
	AllowCopyIgnored bool
	// AllowBuildFlags (--allow-build-flags) lets a job pass the go command
	// any build flag. Without it only safe flags are let through
	// (safeBuildFlags). They run no program of the job's choosing and read
	// nothing outside the slot. The go test -c step runs outside the
	// sandbox, and -toolexec, -exec or an -ldflags=-extld would run any
	// command there.
	AllowBuildFlags bool
	// AllowEnv (--allow-env) names the environment variables a job may set
	// for its test, bench and setup commands. They are names, or prefixes
	// ending in *; "*" allows any. nil is api.DefaultEnv, what a client
	// sends by default (PATH, GOFLAGS, ...). A job's DefaultEnv variable
	// outside it is dropped; any other is refused.
	AllowEnv []string
}

// logValue is the policy as the daemon's log gives it at start.
func (p Policy) logValue() slog.Value {
	return slog.GroupValue(slog.Bool("allow_unsandboxed", p.AllowUnsandboxed), slog.Bool("allow_setup", p.AllowSetup),
		slog.Bool("allow_copy_ignored", p.AllowCopyIgnored), slog.Bool("allow_sandbox_net", p.AllowSandboxNet),
		slog.Bool("allow_build_flags", p.AllowBuildFlags),
		slog.String("allow_env", strings.Join(p.allowEnv(), ",")))
}

// allowEnv is AllowEnv, or its default.
func (p Policy) allowEnv() []string {
	if p.AllowEnv == nil {
		return api.DefaultEnv
	}
	return p.AllowEnv
}

// forbidden is the 403 answer to a request beyond the policy.
func forbidden(field, format string, args ...any) error {
	return &requestError{status: http.StatusForbidden, field: field, msg: fmt.Sprintf(format, args...)}
}

// check refuses a request that asks for what the policy does not allow.
// sandboxErr says whether bwrap works on this machine (proc.SandboxAvailable).
// Every field of a request that widens what a job may do is checked here.
func (p Policy) check(req api.JobRequest, sandboxErr func() error) error {
	o := req.Options
	switch evaluator.SandboxMode(o.Sandbox) {
	case evaluator.SandboxOff:
		if !p.AllowUnsandboxed {
			return forbidden("options.sandbox", "off: this daemon runs candidates only in the sandbox; start it with --allow-unsandboxed to allow this")
		}
	case "", evaluator.SandboxAuto:
		if p.AllowUnsandboxed {
			break
		}
		if err := sandboxErr(); err != nil {
			return forbidden("options.sandbox", "the daemon's machine cannot sandbox candidates (%v), and this daemon runs them only in the sandbox: install bubblewrap, or start the daemon with --allow-unsandboxed", err)
		}
	}
	if o.SandboxNet && !p.AllowSandboxNet {
		return forbidden("options.sandbox_net", "this daemon keeps sandboxed processes off the network; start it with --allow-sandbox-net to allow this")
	}
	if o.Setup != "" && !p.AllowSetup {
		return forbidden("options.setup", "a setup command runs outside the sandbox, and this daemon runs none; start it with --allow-setup to allow this")
	}
	if len(o.CopyFiles) > 0 && !p.AllowCopyIgnored {
		return forbidden("options.copy_files", "this daemon copies no ignored files into slots; start it with --allow-copy-ignored to allow this")
	}
	if !p.AllowBuildFlags {
		if bad := unsafeBuildFlag(o.BuildFlags); bad != "" {
			return forbidden("options.build_flags", "%q: go test -c runs outside the sandbox, and this daemon lets jobs give it only -tags, -race, -msan, -asan, -cover, -covermode, -trimpath, -mod, -buildvcs, -gcflags and -ldflags without -extld; start it with --allow-build-flags to allow this", bad)
		}
	}
	var asked []string
	for _, name := range slices.Sorted(maps.Keys(o.Env)) {
		if !api.EnvMatch(api.DefaultEnv, name) {
			asked = append(asked, name) // a default one is dropped, not refused: see jobEnv
		}
	}
	return p.CheckEnv("options.env", asked)
}

// jobEnv is the environment a job's commands get, as KEY=VALUE, sorted:
// the request's variables the policy allows. A narrower policy than the
// clients' default drops the rest (check refused any outside the default).
func (p Policy) jobEnv(env map[string]string) (kept []string, dropped []string) {
	for _, name := range slices.Sorted(maps.Keys(env)) {
		if p.EnvAllowed(name) {
			kept = append(kept, name+"="+env[name])
		} else {
			dropped = append(dropped, name)
		}
	}
	return kept, dropped
}

// safeBuildFlags are the go build flags a job may give without
// --allow-build-flags, and whether each takes a value.
var safeBuildFlags = map[string]bool{
	"tags": true, "race": false, "msan": false, "asan": false, "cover": false, "covermode": true,
	"trimpath": false, "mod": true, "buildvcs": true, "gcflags": true, "ldflags": true,
}

// unsafeBuildFlag returns the first of flags that is not a safe build flag,
// or "" when all are. Its flags are go test's arguments, with a value in
// the same element after = or in the next.
func unsafeBuildFlag(flags []string) string {
	for i := 0; i < len(flags); i++ {
		f := flags[i]
		name, value, hasValue := strings.Cut(strings.TrimLeft(f, "-"), "=")
		takes, ok := safeBuildFlags[name]
		if !strings.HasPrefix(f, "-") || !ok {
			return f
		}
		if takes && !hasValue {
			if i+1 == len(flags) {
				return f
			}
			i++
			value = flags[i]
		}
		// The external linker, and its flags, name programs to run.
		if name == "ldflags" && strings.Contains(value, "extld") {
			return f
		}
	}
	return ""
}

// CheckEnv refuses environment variables the policy does not name. field
// is the request's field that holds them, for the message.
func (p Policy) CheckEnv(field string, names []string) error {
	for _, n := range names {
		if !p.EnvAllowed(n) {
			return forbidden(field, "%s: this daemon lets jobs set only the environment variables --allow-env names; start it with --allow-env %s to allow this", n, n)
		}
	}
	return nil
}

// EnvAllowed reports whether a job may set the environment variable name.
func (p Policy) EnvAllowed(name string) bool {
	return api.EnvMatch(p.allowEnv(), name)
}

// sandboxMode is the sandbox a job runs with. "auto" becomes "on" unless
// the policy allows candidates to run unsandboxed. So a machine that loses
// bwrap after a job was accepted fails the job instead of running it
// unsandboxed.
func (p Policy) sandboxMode(requested string) evaluator.SandboxMode {
	m := evaluator.SandboxMode(requested)
	if !p.AllowUnsandboxed && (m == "" || m == evaluator.SandboxAuto) {
		return evaluator.SandboxOn
	}
	return m
}
