package machine

import "testing"

func TestSlots_Sizing(t *testing.T) {
	const gib = 1 << 30
	for _, tt := range []struct {
		name  string
		asked int
		cands int
		test  string
		m     Info
		want  int
	}{
		{"AutoCPUsMinusOne", SlotsAuto, 20, "", Info{CPUs: 8, MemAvail: 64 * gib}, 7},
		{"AutoAtLeastOne", SlotsAuto, 20, "", Info{CPUs: 1, MemAvail: 64 * gib}, 1},
		{"AutoTwoCores", SlotsAuto, 20, "", Info{CPUs: 2, MemAvail: 64 * gib}, 1},
		{"AutoTwoCoresGoTest", SlotsAuto, 20, "go test -json -count=1 ./...", Info{CPUs: 2, MemAvail: 64 * gib}, 1},
		{"AutoTwoCoresOtherTest", SlotsAuto, 20, "python3 -m pytest -q", Info{CPUs: 2, MemAvail: 64 * gib}, 2},
		{"AutoOneCoreOtherTest", SlotsAuto, 20, "python3 -m pytest -q", Info{CPUs: 1, MemAvail: 64 * gib}, 1},
		{"AutoEightCoresOtherTest", SlotsAuto, 20, "npm test", Info{CPUs: 8, MemAvail: 64 * gib}, 7},
		{"AutoTwoCoresOtherTestMemoryShort", SlotsAuto, 20, "npm test", Info{CPUs: 2, MemAvail: gib}, 1},
		{"AutoTwoCoresOtherTestOneCandidate", SlotsAuto, 1, "npm test", Info{CPUs: 2, MemAvail: 64 * gib}, 2},
		{"AutoMemoryShort", SlotsAuto, 20, "", Info{CPUs: 16, MemAvail: 4 * gib}, 2},
		{"AutoMemoryVeryShort", SlotsAuto, 20, "", Info{CPUs: 16, MemAvail: gib / 2}, 1},
		{"AutoMemoryUnknown", SlotsAuto, 20, "", Info{CPUs: 4}, 3},
		{"AutoCappedByCandidates", SlotsAuto, 2, "", Info{CPUs: 16, MemAvail: 64 * gib}, 3},
		{"ZeroOnePerCandidate", 0, 6, "", Info{CPUs: 2}, 6},
		{"ZeroNoCandidates", 0, 0, "", Info{CPUs: 2}, 1},
		{"Explicit", 4, 10, "", Info{CPUs: 2}, 4},
		{"ExplicitCapped", 8, 2, "", Info{CPUs: 2}, 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, why := Slots(tt.asked, tt.cands, tt.test, tt.m)
			if got != tt.want {
				t.Errorf("Slots(%v, %d, %q, %+v) = %d (%s), want %d", tt.asked, tt.cands, tt.test, tt.m, got, why, tt.want)
			}
			if why == "" {
				t.Error("no reason given")
			}
		})
	}
}

func TestSlots_MemAvailable(t *testing.T) {
	meminfo := "MemTotal:       32768000 kB\nMemFree:         1000000 kB\nMemAvailable:   23992728 kB\n"
	if got, want := memAvailable([]byte(meminfo)), uint64(23992728*1024); got != want {
		t.Errorf("memAvailable = %d, want %d", got, want)
	}
	if got := memAvailable([]byte("MemTotal: 1 kB\n")); got != 0 {
		t.Errorf("memAvailable without the line = %d, want 0", got)
	}
}
