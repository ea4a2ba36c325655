package main

import (
	"testing"
)

func TestSlots(t *testing.T) {
	const gib = 1 << 30
	for _, tt := range []struct {
		name  string
		flag  parallelFlag
		cands int
		test  string
		m     machine
		want  int
	}{
		{"AutoCPUsMinusOne", parallelAuto, 20, "", machine{CPUs: 8, MemAvail: 64 * gib}, 7},
		{"AutoAtLeastOne", parallelAuto, 20, "", machine{CPUs: 1, MemAvail: 64 * gib}, 1},
		{"AutoTwoCores", parallelAuto, 20, "", machine{CPUs: 2, MemAvail: 64 * gib}, 1},
		{"AutoTwoCoresGoTest", parallelAuto, 20, "go test -json -count=1 ./...", machine{CPUs: 2, MemAvail: 64 * gib}, 1},
		{"AutoTwoCoresOtherTest", parallelAuto, 20, "python3 -m pytest -q", machine{CPUs: 2, MemAvail: 64 * gib}, 2},
		{"AutoOneCoreOtherTest", parallelAuto, 20, "python3 -m pytest -q", machine{CPUs: 1, MemAvail: 64 * gib}, 1},
		{"AutoEightCoresOtherTest", parallelAuto, 20, "npm test", machine{CPUs: 8, MemAvail: 64 * gib}, 7},
		{"AutoTwoCoresOtherTestMemoryShort", parallelAuto, 20, "npm test", machine{CPUs: 2, MemAvail: gib}, 1},
		{"AutoTwoCoresOtherTestOneCandidate", parallelAuto, 1, "npm test", machine{CPUs: 2, MemAvail: 64 * gib}, 2},
		{"AutoMemoryShort", parallelAuto, 20, "", machine{CPUs: 16, MemAvail: 4 * gib}, 2},
		{"AutoMemoryVeryShort", parallelAuto, 20, "", machine{CPUs: 16, MemAvail: gib / 2}, 1},
		{"AutoMemoryUnknown", parallelAuto, 20, "", machine{CPUs: 4}, 3},
		{"AutoCappedByCandidates", parallelAuto, 2, "", machine{CPUs: 16, MemAvail: 64 * gib}, 3},
		{"ZeroOnePerCandidate", 0, 6, "", machine{CPUs: 2}, 6},
		{"ZeroNoCandidates", 0, 0, "", machine{CPUs: 2}, 1},
		{"Explicit", 4, 10, "", machine{CPUs: 2}, 4},
		{"ExplicitCapped", 8, 2, "", machine{CPUs: 2}, 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, why := slots(tt.flag, tt.cands, tt.test, tt.m)
			if got != tt.want {
				t.Errorf("slots(%v, %d, %q, %+v) = %d (%s), want %d", tt.flag, tt.cands, tt.test, tt.m, got, why, tt.want)
			}
			if why == "" {
				t.Error("no reason given")
			}
		})
	}
}

func TestMemAvailable(t *testing.T) {
	meminfo := "MemTotal:       32768000 kB\nMemFree:         1000000 kB\nMemAvailable:   23992728 kB\n"
	if got, want := memAvailable([]byte(meminfo)), uint64(23992728*1024); got != want {
		t.Errorf("memAvailable = %d, want %d", got, want)
	}
	if got := memAvailable([]byte("MemTotal: 1 kB\n")); got != 0 {
		t.Errorf("memAvailable without the line = %d, want 0", got)
	}
}

func TestParallelFlag(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want parallelFlag
		ok   bool
	}{
		{"auto", parallelAuto, true},
		{"0", 0, true},
		{"4", 4, true},
		{"-1", 0, false},
		{"many", 0, false},
	} {
		t.Run(tt.in, func(t *testing.T) {
			var p parallelFlag
			err := p.Set(tt.in)
			if tt.ok != (err == nil) || (tt.ok && p != tt.want) {
				t.Errorf("Set(%q) = %v, %v; want %v ok %v", tt.in, p, err, tt.want, tt.ok)
			}
		})
	}
	b, err := parallelAuto.MarshalJSON()
	if err != nil || string(b) != `"auto"` {
		t.Errorf("MarshalJSON(auto) = %s, %v", b, err)
	}
	var p parallelFlag
	if err := p.UnmarshalJSON([]byte(`"3"`)); err != nil || p != 3 {
		t.Errorf("UnmarshalJSON(\"3\") = %v, %v", p, err)
	}
}
