package profiler

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// flameText lists a flame tree's frames, depth first, as
// "path total.base/total.cand self.base/self.cand".
func flameText(frames []FlameFrame) []string {
	var path, out []string
	for _, f := range frames {
		path = append(path[:f.Depth], f.Func)
		out = append(out, fmt.Sprintf("%s %g/%g %g/%g", strings.Join(path, ";"), f.Total.Base, f.Total.Cand, f.Self.Base, f.Self.Cand))
	}
	return out
}

// flameDepth is the number of levels of a flame tree.
func flameDepth(frames []FlameFrame) int {
	d := 0
	for _, f := range frames {
		d = max(d, f.Depth+1)
	}
	return d
}

func TestSummarize_Flame(t *testing.T) {
	base, cand := synthProfiles(t, "")
	s, err := Summarize(base, cand, synthOptions())
	if err != nil {
		t.Fatal(err)
	}
	if s.Flame == nil {
		t.Fatalf("no flame tree; warnings %q", s.Warnings)
	}
	const root = "(all);runtime.goexit"
	equalLists(t, "flame", flameText(s.Flame), []string{
		"(all) 100/100 0/0",
		"(all);runtime.goexit 100/100 0/0",
		root + ";runtime.gcBgMarkWorker 10/8.33 10/8.33",
		root + ";testing.(*B).runN 90/91.67 0/0",
		root + ";testing.(*B).runN;m.BenchmarkSlow 90/91.67 0/0",
		root + ";testing.(*B).runN;m.BenchmarkSlow;m.Slow 85/83.33 25/83.33",
		root + ";testing.(*B).runN;m.BenchmarkSlow;m.Slow;m.expensive 50/0 50/0",
		root + ";testing.(*B).runN;m.BenchmarkSlow;m.Slow;runtime.mallocgc 10/0 10/0",
		root + ";testing.(*B).runN;m.BenchmarkSlow;sub.(*T).Get 5/8.33 5/0",
		root + ";testing.(*B).runN;m.BenchmarkSlow;sub.(*T).Get;sort.insertionSort 0/8.33 0/8.33",
	})
	var got []string
	for _, c := range s.Changes {
		got = append(got, fmt.Sprintf("%s %g/%g", c.Func, c.Self.Base, c.Self.Cand))
	}
	equalLists(t, "changes", got, []string{"m.Slow 25/83.33", "m.expensive 50/0", "runtime.mallocgc 10/0"})

	// The tree is part of the report's JSON: it must come back whole.
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back Summary
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Flame, s.Flame) || !reflect.DeepEqual(back.Changes, s.Changes) {
		t.Error("the flame tree or the changes differ after a JSON round trip")
	}
}

func TestFlame_Limits(t *testing.T) {
	dir := t.TempDir()
	exit := frame{"runtime.goexit", "runtime/asm_amd64.s", 1}
	// Base: 450 functions of 0.2% each (MinFlameShare) and a hot one of 10%.
	var bs []stack
	for i := range 450 {
		bs = append(bs, stack{2, []frame{{fmt.Sprintf("example.com/m.f%d", i), "m/f.go", i + 1}, exit}})
	}
	bs = append(bs, stack{100, []frame{{"example.com/m.hot", "m/f.go", 1}, exit}})
	// The winner: 300 functions of 0.3% each, and 10% in a stack deeper
	// than MaxFlameDepth whose leaf was preempted.
	var cs []stack
	for i := range 300 {
		cs = append(cs, stack{3, []frame{{fmt.Sprintf("example.com/m.g%d", i), "m/g.go", i + 1}, exit}})
	}
	deep := []frame{{asyncPreempt, "runtime/preempt_amd64.s", 1}}
	for i := range MaxFlameDepth + 10 {
		deep = append(deep, frame{fmt.Sprintf("example.com/m.d%d", MaxFlameDepth+10-i), "m/d.go", i + 1})
	}
	cs = append(cs, stack{100, append(deep, exit)})
	bp, err := readProfile(writeProfile(t, dir, "base.pprof", bs))
	if err != nil {
		t.Fatal(err)
	}
	cp, err := readProfile(writeProfile(t, dir, "cand.pprof", cs))
	if err != nil {
		t.Fatal(err)
	}
	tree, changes, err := flame([2]*profile.Profile{bp, cp}, "cpu")
	if err != nil {
		t.Fatal(err)
	}
	// Over MaxFlameNodes frames reach MinFlameShare: the narrowest, base's
	// 0.2% ones, go, and every wider one stays.
	nodes, depth := len(tree), flameDepth(tree)
	if nodes > MaxFlameNodes {
		t.Errorf("%d frames kept, want at most %d", nodes, MaxFlameNodes)
	}
	if depth != MaxFlameDepth+1 {
		t.Errorf("the tree is %d deep, want the root and %d frames", depth, MaxFlameDepth)
	}
	kept := map[string]int{}
	for i, f := range tree {
		kept[strings.TrimRight(f.Func, "0123456789")]++
		if i > 0 && f.Depth > tree[i-1].Depth+1 {
			t.Errorf("frame %d (%s) is %d deep after one %d deep", i, f.Func, f.Depth, tree[i-1].Depth)
		}
	}
	if kept["m.g"] != 300 || kept["m.f"] != 0 || kept["m.hot"] != 1 || kept["runtime.asyncPreempt"] != 0 {
		t.Errorf("kept %v: want every m.g, m.hot, no m.f and no asyncPreempt", kept)
	}
	var got []string
	for _, c := range changes {
		got = append(got, fmt.Sprintf("%s %g/%g", c.Func, c.Self.Base, c.Self.Cand))
	}
	// The deep stack's time is its true leaf's, past the depth limit.
	equalLists(t, "changes", got, []string{fmt.Sprintf("m.d%d 0/10", MaxFlameDepth+10), "m.hot 10/0", "m.g0 0/0.3"})

	t.Run("NoSamples", func(t *testing.T) {
		empty, err := readProfile(writeProfile(t, dir, "empty.pprof", nil))
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := flame([2]*profile.Profile{bp, empty}, "cpu"); !errors.Is(err, ErrNoSamples) {
			t.Errorf("flame of an empty profile: %v, want ErrNoSamples", err)
		}
	})
}
