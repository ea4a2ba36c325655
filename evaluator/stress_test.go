package evaluator

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/candidate"
	"github.com/optimizer-dev/optimizer/internal/testenv"
	"github.com/optimizer-dev/optimizer/worktreepool"
)

// stressRepo's test does what the candidate's "do" file says: pass, fail,
// hang past the timeout, crash with a signal, or leave a background process.
var stressRepo = map[string]string{
	"do": "pass\n",
	"test.sh": `case "$(cat do)" in
pass) exit 0;;
fail) echo "wrong answer"; exit 1;;
hang) sleep 100;;
crash) kill -SEGV $$;;
daemon) (sleep 300 &) ; exit 0;;
esac
`,
}

// stressCandidates makes n candidates with seeded random behaviours, and
// the verdict each must get.
func stressCandidates(n int, seed uint64) ([]candidate.Candidate, map[string]Verdict) {
	r := rand.New(rand.NewPCG(seed, 0))
	kinds := []string{"pass", "pass", "pass", "fail", "fail", "crash", "daemon", "hang"}
	var cands []candidate.Candidate
	want := map[string]Verdict{}
	for i := range n {
		kind := kinds[r.IntN(len(kinds))]
		if kind == "hang" && r.IntN(3) > 0 {
			kind = "fail" // hangs cost a timeout each: keep them few
		}
		name := fmt.Sprintf("c%03d-%s", i, kind)
		cands = append(cands, filesCand(name, map[string]string{"do": kind + "\n", "n": fmt.Sprint(i)}))
		want[name] = VerdictFailed
		if kind == "pass" || kind == "daemon" {
			want[name] = VerdictPassed
		}
	}
	return cands, want
}

// TestRun_Stress runs 200 candidates that pass, fail, time out, crash or
// leave daemons, at -j 1, 2, 4 and 8. The verdicts are the same at every
// level. The pool accounting is clean after each job: the harness checks
// that no slot is still lent out.
func TestRun_Stress(t *testing.T) {
	testenv.Long(t)
	cands, want := stressCandidates(200, 42)
	var first map[string]Verdict
	for _, n := range []int{1, 2, 4, 8} {
		t.Run(fmt.Sprintf("j%d", n), func(t *testing.T) {
			h := newHarness(t, stressRepo)
			rep, err := h.run(t, context.Background(), n, Options{
				Candidates: cands, Test: "sh test.sh", Bench: "none", Timeout: time.Second,
			})
			if err != nil {
				t.Fatal(err)
			}
			got := verdicts(rep)
			for name, v := range want {
				if got[name] != v {
					c := find(rep, name)
					t.Errorf("%s: %s, want %s (failure %+v)", name, got[name], v, c.Failure)
				}
			}
			if first == nil {
				first = got
			}
			for name, v := range first {
				if got[name] != v {
					t.Errorf("%s: %s at -j %d, %s at -j 1", name, got[name], n, v)
				}
			}
			for _, c := range rep.Candidates {
				if strings.HasSuffix(c.Name, "-hang") && (c.Failure == nil || c.Failure.Kind != FailTimeout) {
					t.Errorf("%s: failure %+v, want a timeout", c.Name, c.Failure)
				}
			}
		})
	}
}

func find(rep *Report, name string) CandidateResult {
	for _, c := range rep.Candidates {
		if c.Name == name {
			return c
		}
	}
	return CandidateResult{}
}

// TestRun_RandomCancel cancels jobs at random moments. Run returns, every
// slot comes back (checked by the harness), and the job is recorded
// interrupted. No goroutine is left behind once the pool is closed.
func TestRun_RandomCancel(t *testing.T) {
	testenv.Long(t)
	before := runtime.NumGoroutine()
	r := rand.New(rand.NewPCG(7, 7))
	cands, _ := stressCandidates(40, 9)
	for i := range 6 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			h := newHarness(t, stressRepo)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			// Cancel at a random point of the job, counted in its events
			// (over 80 for 40 candidates), so that the cancel always lands
			// mid-job, whatever the machine's speed.
			at := 1 + r.IntN(60)
			events := make(chan Event)
			go func() {
				n := 0
				for range events {
					if n++; n == at {
						cancel()
					}
				}
			}()
			rep, err := h.run(t, ctx, 1+r.IntN(4), Options{
				Candidates: cands, Test: "sh test.sh", Bench: "none", Timeout: time.Second, Events: events,
			})
			close(events) // Run has returned: nothing sends any more
			if err == nil || rep == nil {
				t.Fatalf("Run = %v, %v after a cancel at event %d: want the interrupted report and context.Canceled", rep, err, at)
			}
			if !errors.Is(err, context.Canceled) {
				t.Errorf("Run's error %v, want context.Canceled", err)
			}
			if rep.State != "interrupted" {
				t.Fatalf("report %v, err %v: want an interrupted report", rep, err)
			}
			job, jerr := h.db.Job(context.Background(), rep.Job)
			if jerr != nil || job.State != "interrupted" {
				t.Errorf("stored job %+v, %v: want interrupted", job, jerr)
			}
		})
	}
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before+2 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before+2 {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines after the jobs, %d before:\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
}

// TestRun_VandalTests runs, in a single slot, candidates whose tests damage
// the slot: each next candidate still gets a clean slot at base, repaired in
// place.
func TestRun_VandalTests(t *testing.T) {
	files := map[string]string{
		"ok": "yes\n",
		"test.sh": `test "$(cat ok)" = yes || exit 1
test -f keep || exit 1
test ! -e junk || exit 1
case "$(cat do 2>/dev/null)" in
tracked) echo no > ok;;
delete) rm -f keep test.sh;;
dotgit) rm -f .git;;
junk) mkdir -p junk/deep && echo x > junk/deep/f && chmod -w junk/deep junk;;
esac
exit 0
`,
		"keep": "k\n",
	}
	h := newHarness(t, files)
	var cands []candidate.Candidate
	for _, do := range []string{"tracked", "delete", "dotgit", "junk", "none"} {
		cands = append(cands, filesCand(do, map[string]string{"do": do + "\n"}))
	}
	pool, err := worktreepool.Open(context.Background(), worktreepool.Options{Repo: h.repo, Base: h.base, Size: 1, Dir: filepath.Join(t.TempDir(), "slots"),
		MachineLock: filepath.Join(t.TempDir(), "machine.lock")})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close(context.Background())
	rep, err := Run(context.Background(), pool, h.db, Options{Repo: h.repo, Base: h.base,
		Candidates: cands, Test: "sh test.sh", Bench: "none", Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range rep.Candidates {
		if c.Verdict != VerdictPassed {
			t.Errorf("%s: %s (%+v): the slot was not restored after the previous candidate", c.Name, c.Verdict, c.Failure)
		}
	}
	if st := pool.Stats(); st.Replaced != 0 || st.Open != 1 || st.InUse != 0 {
		t.Errorf("pool %+v: want the one slot repaired in place", st)
	}
}

// TestRun_HugeOutput runs a test that writes 100 MB: the job goes on, and
// what is kept of the output, in memory and in the store, is capped.
func TestRun_HugeOutput(t *testing.T) {
	h := newHarness(t, map[string]string{
		"test.sh": "if [ -f big ]; then head -c 100000000 /dev/zero | tr '\\0' x; echo; exit 1; fi\n",
	})
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	allocBefore := ms.TotalAlloc
	rep, err := h.run(t, context.Background(), 1, Options{
		Candidates: []candidate.Candidate{filesCand("big", map[string]string{"big": "1"})},
		Test:       "sh test.sh", Bench: "none", Timeout: time.Minute,
	})
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&ms)
	if alloc := ms.TotalAlloc - allocBefore; alloc > 64<<20 {
		t.Errorf("the job allocated %d MB for 100 MB of output: it is not streamed", alloc>>20)
	}
	c := rep.Candidates[0]
	if c.Verdict != VerdictFailed || c.Failure == nil {
		t.Fatalf("verdict %s", c.Verdict)
	}
	if n := len(c.Failure.Output); n > 64<<10 {
		t.Errorf("failure output kept %d bytes", n)
	}
	rows, err := h.db.Candidates(context.Background(), rep.Job)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(rows[0].Result) + len(rows[0].Failure); n > 128<<10 {
		t.Errorf("the store holds %d bytes for the candidate", n)
	}
	info, err := os.Stat(h.db.Path())
	if err != nil {
		t.Fatal(err)
	}
	if info.Size() > 8<<20 {
		t.Errorf("store file is %d bytes", info.Size())
	}
}

// attackRepo is a Go module whose test runs a script and reads a file.
// Since go test cannot track the script, a cached result would forge a
// pass. Its second test attacks its slot as the candidate's "attack" file
// says. It writes a tracked file through a hard link it then removes, or
// checks out the user's branch "other".
var attackRepo = map[string]string{
	"go.mod":   "module example.com/attack\n\ngo 1.22\n",
	"check.sh": "exit 0\n",
	"ok":       "yes\n",
	"attack_test.go": `package attack

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	if out, err := exec.Command("sh", "check.sh").CombinedOutput(); err != nil {
		t.Fatalf("check.sh: %v\n%s", err, out)
	}
	if b, _ := os.ReadFile("ok"); string(b) != "yes\n" {
		t.Fatalf("ok says %q: the slot was poisoned", b)
	}
}

func TestAttack(t *testing.T) {
	b, _ := os.ReadFile("attack")
	switch strings.TrimSpace(string(b)) {
	case "hardlink":
		os.Link("ok", ".l")
		os.WriteFile(".l", []byte("no\n"), 0o644)
		os.Remove(".l")
	case "checkout":
		exec.Command("git", "checkout", "-q", "other").Run()
	}
}
`,
}

// TestRun_SlotAttacks runs candidates whose tests attack the slots, at -j 1,
// 2, 4 and 8. Beside them run candidates that fail only in a script go test
// cannot see. Every verdict is the expected one at every level, and no ref
// of the user's moved.
func TestRun_SlotAttacks(t *testing.T) {
	testenv.Long(t)
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("needs the go command")
	}
	r := rand.New(rand.NewPCG(20, 20))
	kinds := []string{"pass", "fail", "hardlink", "checkout"}
	var cands []candidate.Candidate
	want := map[string]Verdict{}
	for i := range 16 {
		kind := kinds[r.IntN(len(kinds))]
		name := fmt.Sprintf("c%02d-%s", i, kind)
		files := map[string]string{"n": fmt.Sprint(i)}
		want[name] = VerdictPassed
		switch kind {
		case "fail":
			files["check.sh"] = "exit 1\n"
			want[name] = VerdictFailed
		case "hardlink", "checkout":
			files["attack"] = kind + "\n"
		}
		cands = append(cands, filesCand(name, files))
	}
	for _, n := range []int{1, 2, 4, 8} {
		t.Run(fmt.Sprintf("j%d", n), func(t *testing.T) {
			h := newHarness(t, attackRepo)
			git(t, h.repo, "branch", "other")
			git(t, h.repo, "checkout", "-q", "other")
			os.WriteFile(filepath.Join(h.repo, "check.sh"), []byte("exit 3\n"), 0o644)
			git(t, h.repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-am", "other")
			git(t, h.repo, "checkout", "-q", "main")
			refs := git(t, h.repo, "for-each-ref", "--format=%(refname) %(objectname)")
			rep, err := h.run(t, context.Background(), n, Options{
				Candidates: cands, Test: "go test ./...", Bench: "none", Timeout: 5 * time.Minute,
			})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range rep.Candidates {
				if c.Verdict != want[c.Name] {
					t.Errorf("%s: %s, want %s (failure %+v)", c.Name, c.Verdict, want[c.Name], c.Failure)
				}
			}
			if got := git(t, h.repo, "for-each-ref", "--format=%(refname) %(objectname)"); got != refs {
				t.Errorf("the user's refs moved:\n got %s\nwant %s", got, refs)
			}
		})
	}
}
