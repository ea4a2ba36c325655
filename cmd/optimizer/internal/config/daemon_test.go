package config

import (
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/optimizer-dev/optimizer/client"
	"github.com/optimizer-dev/optimizer/daemon"
)

func TestSocketPath(t *testing.T) {
	t.Setenv(client.SocketEnv, "")
	if got := SocketPath(""); got != client.DefaultSocket() {
		t.Errorf("no flag, no variable: %s, want the default %s", got, client.DefaultSocket())
	}
	t.Setenv(client.SocketEnv, "/run/env.sock")
	if got := SocketPath(""); got != "/run/env.sock" {
		t.Errorf("with %s set: %s", client.SocketEnv, got)
	}
	if got := SocketPath("/run/flag.sock"); got != "/run/flag.sock" {
		t.Errorf("the flag does not win: %s", got)
	}
}

// TestDaemon_DaemonOptions: the flags become the daemon's options, the
// disk budget read as a size and a negative slot budget taken as auto;
// a bad size is refused naming its flag.
func TestDaemon_DaemonOptions(t *testing.T) {
	t.Setenv(client.SocketEnv, "")
	for _, tt := range []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"Defaults", []string{"--state-dir", "/s"}, ""},
		{"Set", []string{"--state-dir", "/s", "--socket", "/d.sock", "-j", "-3", "--pool-disk", "1G", "-v"}, ""},
		{"Policy", []string{"--state-dir", "/s", "--allow-unsandboxed", "--allow-setup", "--allow-copy-ignored", "--allow-sandbox-net", "--allow-build-flags", "--allow-env", "GOFLAGS,CGO_ENABLED", "--allow-env", "GOPROXY"}, ""},
		{"BadSize", []string{"--state-dir", "/s", "--pool-disk", "lots"}, `--pool-disk "lots": want a size such as 20G`},
		{"ZeroSize", []string{"--state-dir", "/s", "--pool-disk", "0"}, "--pool-disk"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var d Daemon
			fs := pflag.NewFlagSet("daemon", pflag.ContinueOnError)
			d.Register(fs)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			var log strings.Builder
			opts, err := d.DaemonOptions(&log)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("DaemonOptions: %v, want an error saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if opts.StateDir != "/s" || opts.Slots < 0 || opts.Logger == nil {
				t.Errorf("options %+v", opts)
			}
			opts.Logger.Debug("debug line")
			if d.Verbose != strings.Contains(log.String(), "debug line") {
				t.Errorf("verbose %v: log %q", d.Verbose, log.String())
			}
			switch tt.name {
			case "Defaults":
				if opts.Socket != client.DefaultSocket() || opts.DiskBudget != 20<<30 || opts.MaxJobs == 0 {
					t.Errorf("defaults: socket %s, disk %d, max jobs %d", opts.Socket, opts.DiskBudget, opts.MaxJobs)
				}
				if !reflect.DeepEqual(opts.Policy, daemon.Policy{}) {
					t.Errorf("the default policy allows %+v, want nothing", opts.Policy)
				}
			case "Policy":
				want := daemon.Policy{AllowUnsandboxed: true, AllowSetup: true, AllowCopyIgnored: true, AllowSandboxNet: true, AllowBuildFlags: true,
					AllowEnv: []string{"GOFLAGS", "CGO_ENABLED", "GOPROXY"}}
				if !reflect.DeepEqual(opts.Policy, want) {
					t.Errorf("policy %+v, want %+v", opts.Policy, want)
				}
			case "Set":
				if opts.Socket != "/d.sock" || opts.DiskBudget != 1<<30 || opts.Slots != 0 {
					t.Errorf("set: socket %s, disk %d, slots %d", opts.Socket, opts.DiskBudget, opts.Slots)
				}
			}
		})
	}
}
