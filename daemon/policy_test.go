package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/api"
	"github.com/optimizer-dev/optimizer/client"
	"github.com/optimizer-dev/optimizer/internal/testenv"
	"github.com/optimizer-dev/optimizer/jobspec"
	"github.com/optimizer-dev/optimizer/proc"
	"github.com/optimizer-dev/optimizer/store"
)

// TestPolicy_Check: each request that widens what a job may do is refused
// with 403 and the flag that allows it, unless the policy has that flag.
func TestPolicy_Check(t *testing.T) {
	works := func() error { return nil }
	noBwrap := func() error { return fmt.Errorf("%w: bwrap: not found", proc.ErrNoSandbox) }
	for _, tt := range []struct {
		name    string
		opts    jobspec.Spec
		sandbox func() error
		allow   Policy
		flag    string // "" when allowed
	}{
		{name: "Defaults", opts: jobspec.Spec{}, sandbox: works},
		{name: "Auto", opts: jobspec.Spec{Sandbox: "auto"}, sandbox: works},
		{name: "On", opts: jobspec.Spec{Sandbox: "on"}, sandbox: works},
		{name: "Off", opts: jobspec.Spec{Sandbox: "off"}, sandbox: works, flag: "--allow-unsandboxed"},
		{name: "OffAllowed", opts: jobspec.Spec{Sandbox: "off"}, sandbox: works, allow: Policy{AllowUnsandboxed: true}},
		{name: "AutoWithoutBwrap", opts: jobspec.Spec{Sandbox: "auto"}, sandbox: noBwrap, flag: "--allow-unsandboxed"},
		{name: "DefaultWithoutBwrap", opts: jobspec.Spec{}, sandbox: noBwrap, flag: "--allow-unsandboxed"},
		{name: "AutoWithoutBwrapAllowed", opts: jobspec.Spec{Sandbox: "auto"}, sandbox: noBwrap, allow: Policy{AllowUnsandboxed: true}},
		{name: "Net", opts: jobspec.Spec{SandboxNet: true}, sandbox: works, flag: "--allow-sandbox-net"},
		{name: "NetAllowed", opts: jobspec.Spec{SandboxNet: true}, sandbox: works, allow: Policy{AllowSandboxNet: true}},
		{name: "Setup", opts: jobspec.Spec{Setup: "make gen"}, sandbox: works, flag: "--allow-setup"},
		{name: "SetupAllowed", opts: jobspec.Spec{Setup: "make gen"}, sandbox: works, allow: Policy{AllowSetup: true}},
		{name: "CopyIgnored", opts: jobspec.Spec{CopyFiles: []string{".env"}}, sandbox: works, flag: "--allow-copy-ignored"},
		{name: "CopyIgnoredAllowed", opts: jobspec.Spec{CopyFiles: []string{".env"}}, sandbox: works, allow: Policy{AllowCopyIgnored: true}},
		{name: "SafeBuildFlags", opts: jobspec.Spec{BuildFlags: []string{"-tags=noasm", "-race", "-gcflags", "all=-N -l", "-ldflags=-s -w -X main.v=1", "--mod=vendor"}}, sandbox: works},
		{name: "Toolexec", opts: jobspec.Spec{BuildFlags: []string{"-tags=x", "-toolexec=sh -c 'id' sh"}}, sandbox: works, flag: "--allow-build-flags"},
		{name: "Exec", opts: jobspec.Spec{BuildFlags: []string{"-exec", "sh"}}, sandbox: works, flag: "--allow-build-flags"},
		{name: "Extld", opts: jobspec.Spec{BuildFlags: []string{"-ldflags", "-linkmode=external -extld=/tmp/x"}}, sandbox: works, flag: "--allow-build-flags"},
		{name: "Overlay", opts: jobspec.Spec{BuildFlags: []string{"-overlay=/etc/o.json"}}, sandbox: works, flag: "--allow-build-flags"},
		{name: "StrayArgument", opts: jobspec.Spec{BuildFlags: []string{"-race", "./..."}}, sandbox: works, flag: "--allow-build-flags"},
		{name: "MissingValue", opts: jobspec.Spec{BuildFlags: []string{"-tags"}}, sandbox: works, flag: "--allow-build-flags"},
		{name: "BuildFlagsAllowed", opts: jobspec.Spec{BuildFlags: []string{"-toolexec=sh -c 'id' sh"}}, sandbox: works, allow: Policy{AllowBuildFlags: true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.allow.check(api.JobRequest{Options: tt.opts}, tt.sandbox)
			if tt.flag == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var re *requestError
			if !errors.As(err, &re) || re.status != http.StatusForbidden || !strings.Contains(re.msg, tt.flag) {
				t.Fatalf("got %v, want a 403 naming %s", err, tt.flag)
			}
		})
	}
	p := Policy{AllowEnv: []string{"GOFLAGS"}}
	if err := p.CheckEnv("env", []string{"GOFLAGS"}); err != nil {
		t.Errorf("an allowed variable is refused: %v", err)
	}
	if err := p.CheckEnv("env", []string{"GOFLAGS", "LD_PRELOAD"}); err == nil || !strings.Contains(err.Error(), "--allow-env LD_PRELOAD") {
		t.Errorf("LD_PRELOAD: got %v, want a refusal naming --allow-env LD_PRELOAD", err)
	}
	if !(Policy{AllowEnv: []string{"*"}}).EnvAllowed("ANY") || !(Policy{}).EnvAllowed("PATH") || (Policy{}).EnvAllowed("LD_PRELOAD") {
		t.Error("* allows every variable, and the default what clients send by default (PATH), no other")
	}
}

// TestPolicy_JobEnv: a job's environment is what the policy allows. A
// variable a client sends by default is dropped by a narrower policy; one
// outside that list is refused unless the policy names it.
func TestPolicy_JobEnv(t *testing.T) {
	env := map[string]string{"PATH": "/opt/go/bin:/usr/bin", "GOFLAGS": "-mod=mod", "CGO_ENABLED": "0"}
	for _, tt := range []struct {
		name    string
		allow   []string
		kept    string
		dropped string
	}{
		{"Default", nil, "CGO_ENABLED=0 GOFLAGS=-mod=mod PATH=/opt/go/bin:/usr/bin", ""},
		{"Narrowed", []string{"PATH"}, "PATH=/opt/go/bin:/usr/bin", "CGO_ENABLED GOFLAGS"},
		{"Prefix", []string{"CGO_*"}, "CGO_ENABLED=0", "GOFLAGS PATH"},
		{"None", []string{"none"}, "", "CGO_ENABLED GOFLAGS PATH"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := Policy{AllowEnv: tt.allow}
			if err := p.check(api.JobRequest{Options: jobspec.Spec{Sandbox: "on", Env: env}}, func() error { return nil }); err != nil {
				t.Fatalf("a client's default variables are refused: %v", err)
			}
			kept, dropped := p.jobEnv(env)
			if got := strings.Join(kept, " "); got != tt.kept {
				t.Errorf("kept %q, want %q", got, tt.kept)
			}
			if got := strings.Join(dropped, " "); got != tt.dropped {
				t.Errorf("dropped %q, want %q", got, tt.dropped)
			}
		})
	}
	req := api.JobRequest{Options: jobspec.Spec{Sandbox: "on", Env: map[string]string{"PATH": "/bin", "LD_PRELOAD": "/tmp/x.so"}}}
	err := (Policy{}).check(req, func() error { return nil })
	var re *requestError
	if !errors.As(err, &re) || re.status != http.StatusForbidden || re.field != "options.env" || !strings.Contains(re.msg, "--allow-env LD_PRELOAD") {
		t.Errorf("LD_PRELOAD on a default daemon: %v, want a 403 on options.env naming --allow-env LD_PRELOAD", err)
	}
}

// TestPolicy_APIAttack performs the attack of issue 33. A process that
// reaches the daemon's socket (a candidate's code, a script) submits a job
// that turns the sandbox off. The job runs a setup command that copies a
// secret. A daemon started with the defaults refuses it, records nothing
// and runs nothing; one started with the flags runs it.
func TestPolicy_APIAttack(t *testing.T) {
	repo := shellRepo(t)
	dir := t.TempDir()
	secret, leak := filepath.Join(dir, "secret"), filepath.Join(dir, "leak")
	if err := os.WriteFile(secret, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	attack := fmt.Sprintf(`{"repo": %q, "candidates": [{"name": "x", "files": {"lib.txt": "2\n"}}],
		"options": {"test": "true", "bench": "none", "sandbox": "off", "setup": "cat %s > %s"}}`, repo, secret, leak)
	post := func(sock string) (int, api.Error) {
		resp, err := unixHTTP(sock).Post("http://optimizer/v1/jobs", "application/json", strings.NewReader(attack))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var e api.Error
		json.NewDecoder(resp.Body).Decode(&e)
		return resp.StatusCode, e
	}

	srv, c := startServer(t, nil)
	status, e := post(srv.opts.Socket)
	if status != http.StatusForbidden || e.Field != "options.sandbox" || !strings.Contains(e.Message, "--allow-unsandboxed") {
		t.Fatalf("the attack got %d %+v, want 403 on options.sandbox naming --allow-unsandboxed", status, e)
	}
	list, err := c.Jobs(t.Context(), client.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Jobs) != 0 {
		t.Errorf("the refused job was recorded: %+v", list.Jobs)
	}
	// With the sandbox allowed off but no setup, the setup is what is refused.
	srv2, _ := startServer(t, allowUnsandboxed)
	if status, e := post(srv2.opts.Socket); status != http.StatusForbidden || e.Field != "options.setup" || !strings.Contains(e.Message, "--allow-setup") {
		t.Fatalf("with --allow-unsandboxed only: %d %+v, want 403 on options.setup naming --allow-setup", status, e)
	}
	if _, err := os.Stat(leak); err == nil {
		t.Fatal("a refused job's setup ran")
	}

	// The person who starts the daemon may allow it.
	open, oc := startServer(t, func(o *Options) { o.Policy = Policy{AllowUnsandboxed: true, AllowSetup: true} })
	if status, e := post(open.opts.Socket); status != http.StatusAccepted {
		t.Fatalf("with --allow-unsandboxed --allow-setup: %d %+v, want 202", status, e)
	}
	list, err = oc.Jobs(t.Context(), client.ListOptions{})
	if err != nil || len(list.Jobs) != 1 {
		t.Fatalf("jobs %+v, %v", list, err)
	}
	if j := waitJob(t, oc, list.Jobs[0].ID); j.State != store.QueueFinished {
		t.Fatalf("the allowed job ended %s: %s", j.State, j.Error)
	}
	if b, err := os.ReadFile(leak); err != nil || string(b) != "s3cret\n" {
		t.Errorf("the allowed setup did not run: %q, %v", b, err)
	}
}

// TestPolicy_NoBwrap: on a machine where bwrap does not work, a job that
// leaves the sandbox to auto (as the CLI does) is refused. The message says
// so. A daemon started with --allow-unsandboxed runs it.
func TestPolicy_NoBwrap(t *testing.T) {
	repo := shellRepo(t)
	noBwrap := func() error { return fmt.Errorf("%w: bwrap: executable file not found in $PATH", proc.ErrNoSandbox) }
	req := api.JobRequest{Repo: repo, Candidates: []json.RawMessage{inline(t, "a", map[string]string{"lib.txt": "2\n"})},
		Options: jobspec.Spec{Test: shellTest, Bench: "none", Sandbox: "auto", Timeout: jobspec.Duration(time.Minute),
			BenchBudget: jobspec.Duration(time.Minute), NoPin: true, NoProfile: true}}

	_, c := startServer(t, func(o *Options) { o.sandboxErr = noBwrap })
	_, err := c.Submit(t.Context(), req)
	var apiErr *api.Error
	if !errors.As(err, &apiErr) || apiErr.Status != http.StatusForbidden ||
		!strings.Contains(apiErr.Message, "cannot sandbox") || !strings.Contains(apiErr.Message, "--allow-unsandboxed") {
		t.Fatalf("without bwrap: %v, want 403 saying the machine cannot sandbox and naming --allow-unsandboxed", err)
	}

	_, oc := startServer(t, func(o *Options) { o.sandboxErr = noBwrap; o.Policy.AllowUnsandboxed = true })
	sub, err := oc.Submit(t.Context(), req)
	if err != nil {
		t.Fatalf("with --allow-unsandboxed: %v", err)
	}
	if j := waitJob(t, oc, sub.ID); j.State != store.QueueFinished {
		t.Fatalf("the job ended %s: %s", j.State, j.Error)
	}
}

// TestPolicy_Queued: a job accepted under a wider policy (a daemon started
// with --allow-setup) and still queued when the daemon restarts without it
// fails, and its setup does not run.
func TestPolicy_Queued(t *testing.T) {
	repo := shellRepo(t)
	leak := filepath.Join(t.TempDir(), "leak")
	req := api.JobRequest{Repo: repo, Candidates: []json.RawMessage{inline(t, "a", map[string]string{"lib.txt": "2\n"})},
		Options: jobspec.Spec{Test: shellTest, Bench: "none", Setup: "touch " + leak}}
	spec, err := validate(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	statedb := filepath.Join(t.TempDir(), "daemon.db")
	db, err := store.Open(t.Context(), statedb)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Enqueue(context.Background(), store.QueuedJob{ID: "dqueued", Repo: spec.Root, Base: spec.Base, Request: b}); err != nil {
		t.Fatal(err)
	}
	db.Close()

	_, c := startServer(t, func(o *Options) { o.StateDB = statedb })
	j := waitJob(t, c, "dqueued")
	if j.State != store.QueueFailed || !strings.Contains(j.Error, "--allow-setup") {
		t.Errorf("the queued job ended %s (%s), want failed naming --allow-setup", j.State, j.Error)
	}
	if _, err := os.Stat(leak); err == nil {
		t.Error("the setup of a job the policy refuses ran")
	}
}

// TestPolicy_Toolexec performs a policy bypass through build flags: go
// test -c builds the benchmark binaries outside the sandbox, and a job's
// -toolexec makes it run any command there. A default daemon refuses the
// job; one started with --allow-build-flags runs it, and the command ran
// on the host (the control: the bypass is real).
func TestPolicy_Toolexec(t *testing.T) {
	testenv.Once(t)
	repo := newTestRepo(t, map[string]string{
		"go.mod":    "module m\n\ngo 1.21\n",
		"p.go":      "package p\n\n// F is one.\nfunc F() int { return 1 }\n",
		"p_test.go": "package p\n\nimport \"testing\"\n\nfunc TestF(t *testing.T) {\n\tif F() != 1 {\n\t\tt.Fatal(F())\n\t}\n}\n\nfunc BenchmarkF(b *testing.B) {\n\tfor range b.N {\n\t\tF()\n\t}\n}\n",
	})
	mark := filepath.Join(t.TempDir(), "ran-on-the-host")
	req := api.JobRequest{Repo: repo,
		Candidates: []json.RawMessage{inline(t, "same", map[string]string{"p.go": "package p\n\n// F is one, still.\nfunc F() int { return 1 }\n"})},
		Options: jobspec.Spec{Timeout: jobspec.Duration(3 * time.Minute), BenchBudget: jobspec.Duration(20 * time.Second), MaxPairs: 4, NoProfile: true,
			BuildFlags: []string{`-toolexec=sh -c 'touch ` + mark + `; exec "$@"' sh`}}}

	_, c := startServer(t, nil)
	_, err := c.Submit(t.Context(), req)
	var apiErr *api.Error
	if !errors.As(err, &apiErr) || apiErr.Status != http.StatusForbidden || apiErr.Field != "options.build_flags" {
		t.Fatalf("a default daemon: %v, want 403 on options.build_flags", err)
	}

	_, oc := startServer(t, func(o *Options) { o.Policy.AllowBuildFlags = true })
	sub, err := oc.Submit(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	j := waitJob(t, oc, sub.ID)
	if _, err := os.Stat(mark); err != nil {
		t.Errorf("with --allow-build-flags the toolexec command did not run on the host (job %s: %s): the control fails", j.State, j.Error)
	}
}
