package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/optimizer-dev/optimizer/internal/testenv"
	"github.com/optimizer-dev/optimizer/shard"
)

// shardCandidates is a JSONL candidate set for shellFixture with every kind
// of outcome. It has a winner, a faster one, a slower one, a failing test,
// and a test that runs past --timeout. It also has a patch that does not
// apply, a duplicate of the winner and one of base.
const shardCandidates = `{"name": "fast", "files": {"cand": "1\n", "speed": "0.005\n"}}
{"name": "faster", "files": {"cand": "2\n", "speed": "0.012\n"}}
{"name": "slowpoke", "files": {"cand": "3\n", "speed": "0.5\n"}}
{"name": "broken", "files": {"cand": "4\n", "ok": "no\n"}}
{"name": "hang", "files": {"cand": "5\n", "test.sh": "sleep 60\n"}}
{"name": "noapply", "patch": "--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1 @@\n-zzz\n+b\n"}
{"name": "fastagain", "files": {"cand": "1\n", "speed": "0.005\n"}}
{"name": "nochange", "files": {"ok": "yes\n"}}
`

// shardArgs are the flags every job of the shard tests shares.
func shardArgs(repo, cands string) []string {
	return []string{"--repo", repo, "--candidates", cands, "--test", "sh test.sh", "--bench", "sh bench.sh",
		"--timeout", "5s", "--no-profile", "--sandbox", "off", "--format", "json"}
}

// TestShards_SameVerdicts runs a job whole, then as N shards in N separate
// processes, each with its own pool and store. It merges their stores and
// benchmarks the merge. Every candidate must get the verdict the whole job
// gave it, at N = 1, 2, 3 and 5, and no command may touch the repository.
func TestShards_SameVerdicts(t *testing.T) {
	testenv.Once(t)
	bin, err := exec.LookPath("optimizer") // the test binary, set up by testscript.Main
	if err != nil {
		t.Fatal(err)
	}
	repo, _ := newShellRepo(t, 0)
	dir := t.TempDir()
	cands := filepath.Join(dir, "cands.jsonl")
	if err := os.WriteFile(cands, []byte(shardCandidates), 0o644); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, repo)
	wholeOut := runOK(t, exitOK, append(shardArgs(repo, cands), "--db", filepath.Join(dir, "whole.db"), "-j", "2")...)
	whole := decodeJSONReport(t, wholeOut)
	want := map[string]string{}
	for _, c := range whole.Candidates {
		want[c.Name] = c.Verdict
	}
	for name, v := range map[string]string{"fast": "winner", "broken": "failed", "hang": "failed", "noapply": "failed",
		"fastagain": "duplicate", "nochange": "duplicate", "slowpoke": "slower"} {
		if want[name] != v {
			t.Fatalf("the whole job's verdict for %s is %s, want %s: the fixture does not test what it should", name, want[name], v)
		}
	}
	ids := contentIDs(t, wholeOut)
	for _, n := range []int{1, 2, 3, 5} {
		t.Run(fmt.Sprintf("N=%d", n), func(t *testing.T) {
			sdir := t.TempDir()
			stores := runShards(t, bin, repo, cands, sdir, n)
			if n > 1 {
				benchPartial(t, repo, filepath.Join(sdir, "partial.db"), stores[0], n)
			}
			merged := filepath.Join(sdir, "merged.db")
			runOK(t, exitOK, append([]string{"merge", merged}, stores...)...)
			// Merging again, in another order, changes nothing.
			slicesReverse(stores)
			out := runOK(t, exitOK, append([]string{"merge", merged}, stores...)...)
			if !strings.Contains(out, "0 judged by this merge") {
				t.Errorf("a second merge judged candidates again:\n%s", out)
			}
			benchOut := runOK(t, exitOK, "bench", "--repo", repo, "--db", merged, "--bench", "sh bench.sh",
				"--no-profile", "--sandbox", "off", "--format", "json")
			rep := decodeJSONReport(t, benchOut)
			for _, c := range rep.Candidates {
				if c.Verdict != want[c.Name] {
					t.Errorf("%s: %s in %d shards, %s whole; the report:\n%s", c.Name, c.Verdict, n, want[c.Name], benchOut)
				}
			}
			if len(rep.Candidates) != len(want) {
				t.Errorf("the merged report has %d candidates, want %d", len(rep.Candidates), len(want))
			}
			if n == 1 {
				refuseOtherHost(t, repo, merged)
			}
			if n == 5 {
				spread := map[int]bool{}
				for _, name := range []string{"fast", "broken", "hang", "slowpoke", "faster"} {
					spread[shard.Of(ids[name], n)] = true
				}
				if len(spread) < 3 {
					t.Errorf("the judged candidates fall in %d of 5 shards: the test does not spread them", len(spread))
				}
			}
		})
	}
	if diff := before.diff(snapshot(t, repo)); diff != "" {
		t.Errorf("the repo changed:\n%s", diff)
	}
	if wt := linkedWorktrees(t, repo); len(wt) != 0 {
		t.Errorf("slots left behind: %v", wt)
	}
}

// benchPartial merges shard 1 alone, checks that merge names the shards
// still missing, and that bench refuses a job some of whose candidates no
// shard has judged yet.
func benchPartial(t *testing.T, repo, partial, first string, n int) {
	t.Helper()
	out := runOK(t, exitOK, "merge", partial, first)
	if !strings.Contains(out, fmt.Sprintf("not merged yet: shard 2/%d", n)) {
		t.Errorf("a merge of shard 1 of %d does not name the missing shards:\n%s", n, out)
	}
	var stdout, stderr bytes.Buffer
	err := run(t.Context(), []string{"bench", "--repo", repo, "--db", partial, "--sandbox", "off"}, &stdout, &stderr)
	if code := exitCode(err); code != exitUsage || !strings.Contains(stderr.String(), "merge the stores of every shard first") {
		t.Errorf("bench of a partial merge: exit %d, stderr:\n%s\nwant exit 2 asking for every shard", code, stderr.String())
	}
}

// refuseOtherHost checks that the merged store's samples name this host,
// then makes them another host's, and checks that bench then refuses to add
// this host's to them.
func refuseOtherHost(t *testing.T, repo, merged string) {
	t.Helper()
	db, err := sql.Open("sqlite", merged)
	if err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	var all, here int
	if err := db.QueryRow(`SELECT count(*), count(*) FILTER (WHERE host_name = ? AND host_cpu <> '' AND host_kernel <> '' AND host_go <> '')
		FROM bench_samples`, host).Scan(&all, &here); err != nil || all == 0 || here != all {
		t.Errorf("%d of %d samples name this host (%s) with its CPU, kernel and Go (%v); want all, and some", here, all, host, err)
	}
	res, err := db.Exec(`UPDATE bench_samples SET host_name = 'elsewhere'`)
	db.Close()
	if n, _ := res.RowsAffected(); err != nil || n == 0 {
		t.Fatalf("mark the samples another host's: %d rows, %v", n, err)
	}
	var stdout, stderr bytes.Buffer
	err = run(t.Context(), []string{"bench", "--repo", repo, "--db", merged, "--bench", "sh bench.sh", "--sandbox", "off"}, &stdout, &stderr)
	if code := exitCode(err); code != exitUsage || !strings.Contains(stderr.String(), "benchmark samples from elsewhere") {
		t.Errorf("bench of a job with another host's samples: exit %d, stderr:\n%s\nwant exit 2 naming the other host", code, stderr.String())
	}
}

func slicesReverse(s []string) {
	for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {
		s[i], s[j] = s[j], s[i]
	}
}

// runShards runs shards 1..n of the job at once, each in its own process,
// and returns the stores. Each has its own clone of repo (as on machines of
// their own), pool and store.
func runShards(t *testing.T, bin, repo, cands, dir string, n int) []string {
	t.Helper()
	stores := make([]string, n)
	var wg sync.WaitGroup
	errs := make([]string, n)
	for k := 1; k <= n; k++ {
		stores[k-1] = filepath.Join(dir, fmt.Sprintf("shard-%d.db", k))
		clone := filepath.Join(dir, fmt.Sprintf("clone-%d", k))
		git(t, dir, "clone", "-q", repo, clone)
		args := append(shardArgs(clone, cands), "--db", stores[k-1], "-j", "1", "--shard", fmt.Sprintf("%d/%d", k, n))
		wg.Go(func() {
			var stderr bytes.Buffer
			cmd := exec.Command(bin, args...)
			cmd.Stderr = &stderr
			if err := cmd.Run(); err != nil {
				errs[k-1] = fmt.Sprintf("shard %d/%d: %v\n%s", k, n, err, stderr.String())
			}
		})
	}
	wg.Wait()
	for _, e := range errs {
		if e != "" {
			t.Fatal(e)
		}
	}
	return stores
}

// contentIDs reads the candidates' content ids from a JSON report.
func contentIDs(t *testing.T, out string) map[string]string {
	t.Helper()
	var rep struct {
		Candidates []struct{ Name, ID string } `json:"candidates"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	for _, c := range rep.Candidates {
		ids[c.Name] = c.ID
	}
	return ids
}

// TestShard_BadInput: a bad --shard, and merge or bench given what they
// cannot use, stop with a message naming what to fix, exit 2, and leave
// the repository alone.
func TestShard_BadInput(t *testing.T) {
	repo, cands := newShellRepo(t, 0)
	dir := t.TempDir()
	db := filepath.Join(dir, "s.db")
	notStore := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notStore, []byte("not a store\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, repo)
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"zero", []string{"--repo", repo, "--candidates", cands, "--db", db, "--shard", "0/3"}, "K must be 1 to 3"},
		{"past", []string{"--repo", repo, "--candidates", cands, "--db", db, "--shard", "3/2"}, "K must be 1 to 2"},
		{"word", []string{"--repo", repo, "--candidates", cands, "--db", db, "--shard", "x"}, "want K/N"},
		{"nodb", []string{"--repo", repo, "--candidates", cands, "--shard", "1/2"}, "needs --db FILE"},
		{"auto", []string{"--repo", repo, "--candidates", cands, "--db", db, "--shard", "auto"}, "JOB_COMPLETION_INDEX is not set"},
		{"merge-args", []string{"merge", filepath.Join(dir, "out.db")}, "at least one shard store"},
		{"merge-missing", []string{"merge", filepath.Join(dir, "out.db"), filepath.Join(dir, "missing.db")}, "missing.db"},
		{"merge-not-store", []string{"merge", filepath.Join(dir, "out.db"), notStore}, "not a shard store"},
		{"bench-nodb", []string{"bench", "--repo", repo}, "bench needs --db"},
		{"bench-missing", []string{"bench", "--repo", repo, "--db", filepath.Join(dir, "missing.db")}, "missing.db"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("JOB_COMPLETION_INDEX", "")
			var stdout, stderr bytes.Buffer
			err := run(t.Context(), tt.args, &stdout, &stderr)
			if code := exitCode(err); code != exitUsage || !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("optimizer %s: exit %d, stderr:\n%s\nwant exit 2 saying %q", strings.Join(tt.args, " "), code, stderr.String(), tt.want)
			}
		})
	}
	if _, err := os.Stat(db); err == nil {
		t.Error("a refused shard run made its store")
	}
	if diff := before.diff(snapshot(t, repo)); diff != "" {
		t.Errorf("the repo changed:\n%s", diff)
	}
}
