package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

func TestRefuseForWatch(t *testing.T) {
	given := func(flags ...string) func(string) bool {
		return func(name string) bool { return strings.Contains(" "+strings.Join(flags, " ")+" ", " "+name+" ") }
	}
	if err := RefuseForWatch(given("repo", "format", "test")); err != nil {
		t.Errorf("run's other flags: %v", err)
	}
	for name, why := range WatchRefused {
		if err := RefuseForWatch(given(name)); err == nil || err.Error() != "--"+name+" is not allowed: "+why {
			t.Errorf("--%s: %v, want it refused saying why", name, err)
		}
	}
}

// TestRun_ForWatch: what watch cannot use is dropped, Markdown is refused
// from the command line and plain text from optimizer.toml, and --candidates
// must name directories.
func TestRun_ForWatch(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "one.patch")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name        string
		format      string
		formatGiven bool
		candidates  []string
		wantFormat  string
		wantErr     string
	}{
		{name: "Text", format: FormatText, wantFormat: FormatText},
		{name: "JSON", format: FormatJSON, formatGiven: true, wantFormat: FormatJSON},
		{name: "MarkdownFromFile", format: FormatMarkdown, wantFormat: FormatText},
		{name: "MarkdownGiven", format: FormatMarkdown, formatGiven: true, wantErr: "--format markdown: watch prints text lines or JSON lines"},
		{name: "Directory", format: FormatText, candidates: []string{dir}, wantFormat: FormatText},
		{name: "File", format: FormatText, candidates: []string{file}, wantErr: "--candidates " + file + ": watch takes a directory"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := Defaults()
			o.Base, o.CandidateRefs, o.FailOnRegr = "main", []string{"feature"}, true
			o.Format, o.Candidates = tt.format, tt.candidates
			err := o.ForWatch(tt.formatGiven)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ForWatch = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if o.Base != "HEAD" || o.CandidateRefs != nil || o.FailOnRegr || o.Format != tt.wantFormat {
				t.Errorf("base %s, refs %q, fail-on-regression %v, format %s; want HEAD, none, false, %s", o.Base, o.CandidateRefs, o.FailOnRegr, o.Format, tt.wantFormat)
			}
		})
	}
}

// TestRegisterForWatch: watch hides the flags it refuses and says what the
// others mean to it.
func TestRegisterForWatch(t *testing.T) {
	o := Defaults()
	fs := pflag.NewFlagSet("watch", pflag.ContinueOnError)
	o.Register(fs)
	RegisterForWatch(fs)
	for name := range WatchRefused {
		if !fs.Lookup(name).Hidden {
			t.Errorf("--%s shows in watch's help", name)
		}
	}
	if u := fs.Lookup("candidates").Usage; !strings.Contains(u, "a directory of candidates to watch") {
		t.Errorf("--candidates: %q", u)
	}
	if fs.Lookup("repo").Hidden {
		t.Error("--repo is hidden")
	}
}
