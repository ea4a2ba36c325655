package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/optimizer-dev/optimizer/internal/testenv"
)

// The simulation test is the evidence of issue 3, item 6. On seeded,
// realistic noise, it asks how often Look calls identical code faster or
// slower, how often it catches a true speedup, and how many pairs it takes.
// Everything is seeded, so the numbers are the same on every run and the
// assertions cannot flake.

// machine is the simulated noise of a benchmark machine. Every sample is
//
//	true time × exp(drift(t) + N(0, Sigma²)) × (an outlier factor, rarely)
//
// where t counts samples in the order they are taken, so that drift reaches
// both sides of a pair, as it does on a real machine.
type machine struct {
	// Sigma is the log-normal spread of one sample. A paired log-ratio then
	// spreads by Sigma·√2.
	Sigma float64
	// Outliers is the chance that a sample is slowed by a factor drawn
	// uniformly from 1.5–3 (a page-fault storm, a noisy neighbour).
	Outliers float64
	// Drift is the largest slow drift: a linear trend of up to ±Drift over
	// the whole trial, plus a sinusoid of amplitude up to Drift/2. The
	// sinusoid's period is 10–40 rounds (thermal and frequency changes).
	Drift float64
	// Burst is the lag-1 autocorrelation of the per-sample noise (AR(1),
	// with the same spread Sigma). On a shared machine, a neighbour's burst
	// of work slows several samples in a row. 0 is independent noise.
	Burst float64
}

// pinned is the machine the targets of issue 3 are checked on. Its paired
// log-ratio spread is σ 0.05 (Sigma 0.035 per sample), as measured pinned
// to one CPU on the project's 2-core machine. Issue 3 measured 0.03–0.13
// pinned and 0.18–0.26 unpinned. Outliers slow 3% of samples by 1.5–3×, and
// drift is up to ±5%.
var pinned = machine{Sigma: 0.035, Outliers: 0.03, Drift: 0.05}

// scenario is what one trial compares.
type scenario struct {
	m       machine
	benches int       // 0 cycles 1, 2, 3 over the trials
	speedup float64   // true base/cand of every benchmark; 1 is A/A
	each    []float64 // per-benchmark speedups instead, when set
	abba    bool      // measure in ABBA order instead of a random order per pair
}

func (sc scenario) speedupOf(b int) float64 {
	if sc.each != nil {
		return sc.each[b]
	}
	return sc.speedup
}

// trial is one simulated candidate evaluation.
type trial struct {
	dec   Decision
	pairs int // rounds used: until settled, or MaxPairs
	// codeflash's rule on the same machine noise, in two forms. The first
	// is its protocol: the baseline measured first, as one block, then the
	// candidate. The second is the same rule on our interleaved samples, to
	// separate its two weaknesses.
	codeflash, codeflashABBA bool
}

// timeline draws the machine's log-noise for rounds of perRound samples, one
// value per sample in the order they are taken.
func (m machine) timeline(rng *rand.Rand, rounds, perRound int) []float64 {
	n := rounds * perRound
	slope := (2*rng.Float64() - 1) * m.Drift
	amp := rng.Float64() * m.Drift / 2
	period := (10 + 30*rng.Float64()) * float64(perRound) // in samples
	phase := 2 * math.Pi * rng.Float64()
	out := make([]float64, n)
	innov := math.Sqrt(1 - m.Burst*m.Burst)
	var e float64 // the AR(1) noise; with Burst 0 it is Sigma·N(0,1) afresh
	for t := range out {
		drift := slope*float64(t)/float64(n) + amp*math.Sin(phase+2*math.Pi*float64(t)/period)
		e = m.Burst*e + innov*m.Sigma*rng.NormFloat64()
		v := drift + e
		if rng.Float64() < m.Outliers {
			v += math.Log(1.5 + 1.5*rng.Float64())
		}
		out[t] = v
	}
	return out
}

// run simulates one candidate as the evaluator measures it. Each round takes
// every benchmark on one side, then on the other. The side going first is
// drawn at random for each round (or in ABBA order, with sc.abba). Look is
// asked after every round from MinPairs on, until settled or MaxPairs.
func (sc scenario) run(rng *rand.Rand, seq Sequential) trial {
	seq = seq.withDefaults()
	nb, maxN := sc.benches, seq.MaxPairs
	noise := sc.m.timeline(rng, maxN, 2*nb)
	// The order has a stream of its own, so that both orders meet the same
	// machine noise trial by trial.
	coins := rand.New(rand.NewPCG(rng.Uint64(), 0))
	baseFirst := make([]bool, maxN)
	for r := range baseFirst {
		baseFirst[r] = r%2 == 0
		if !sc.abba {
			baseFirst[r] = coins.IntN(2) == 0
		}
	}
	value := func(slot, b int, cand bool) float64 {
		v := math.Exp(noise[slot])
		if cand {
			v /= sc.speedupOf(b)
		}
		return v
	}
	// pair returns benchmark b's pair in round r.
	pair := func(r, b int) Pair {
		first, second := (2*r)*nb+b, (2*r+1)*nb+b
		if baseFirst[r] {
			return Pair{Base: value(first, b, false), Cand: value(second, b, true)}
		}
		return Pair{Cand: value(first, b, true), Base: value(second, b, false)}
	}
	rounds := make([][]Pair, 0, maxN)
	var tr trial
	for r := range maxN {
		round := make([]Pair, nb)
		for b := range nb {
			round[b] = pair(r, b)
		}
		rounds = append(rounds, round)
		if r+1 < seq.MinPairs {
			continue
		}
		tr.dec = seq.Look(nil, rounds)
		tr.pairs = r + 1
		if tr.dec.Settled {
			break
		}
	}
	// codeflash: maxN loops of base first, then maxN loops of the
	// candidate; its runtime is the sum over inputs (here benchmarks) of
	// the minimum over loops. It gets every loop, more than we use.
	var block, abba [2]float64
	for b := range nb {
		bb, bc, ab, ac := math.Inf(1), math.Inf(1), math.Inf(1), math.Inf(1)
		for r := range maxN {
			bb = min(bb, value(r*nb+b, b, false))
			bc = min(bc, value((maxN+r)*nb+b, b, true))
			p := pair(r, b)
			ab, ac = min(ab, p.Base), min(ac, p.Cand)
		}
		block[0], block[1] = block[0]+bb, block[1]+bc
		abba[0], abba[1] = abba[0]+ab, abba[1]+ac
	}
	tr.codeflash = CodeflashRule(block[:1], block[1:], 0.05)
	tr.codeflashABBA = CodeflashRule(abba[:1], abba[1:], 0.05)
	return tr
}

// rates summarises the trials of one scenario.
type rates struct {
	trials                   int
	verdicts                 map[Outcome]int
	settled                  int
	pairs, maxPairs          int
	within8                  int // settled within 8 pairs
	subset                   int // not-faster, but faster on some benchmarks and slower on none
	rowClaims                int // trials that claimed some benchmark faster or slower (FasterOn, SlowerOn)
	fasterOn                 map[int]int
	codeflash, codeflashABBA int
}

func (r rates) frac(n int) float64 { return float64(n) / float64(r.trials) }

func (r rates) pct(v Outcome) float64 { return 100 * r.frac(r.verdicts[v]) }

// wrong counts the A/A trials that made a claim: faster, slower, mixed, or
// faster on a subset of the benchmarks.
func (r rates) wrong() int {
	return r.verdicts[Faster] + r.verdicts[Slower] + r.verdicts[Mixed] + r.subset
}

func (r rates) meanPairs() float64 { return float64(r.pairs) / float64(r.trials) }

func (r rates) String() string {
	return fmt.Sprintf("faster %5.1f%%  subset %4.1f%%  slower %4.1f%%  mixed %4.1f%%  settled %5.1f%%  pairs mean %4.1f max %2d  ≤8: %5.1f%%  | codeflash %5.1f%% (interleaved %5.1f%%)",
		r.pct(Faster), 100*r.frac(r.subset), r.pct(Slower), r.pct(Mixed), 100*r.frac(r.settled),
		r.meanPairs(), r.maxPairs, 100*r.frac(r.within8), 100*r.frac(r.codeflash), 100*r.frac(r.codeflashABBA))
}

// simulate runs trials of sc from a seed derived from seed and the scenario,
// so each scenario's numbers do not depend on which others run.
func simulate(sc scenario, seq Sequential, trials int, seed uint64) rates {
	rng := rand.New(rand.NewPCG(seed, math.Float64bits(sc.speedup)^uint64(sc.benches)<<56))
	r := rates{verdicts: map[Outcome]int{}, fasterOn: map[int]int{}}
	for i := range trials {
		s := sc
		if s.benches == 0 {
			s.benches = 1 + i%3
		}
		tr := s.run(rng, seq)
		r.trials++
		r.verdicts[tr.dec.Verdict]++
		if tr.dec.Subset {
			r.subset++
		}
		if len(tr.dec.FasterOn)+len(tr.dec.SlowerOn) > 0 {
			r.rowClaims++
		}
		for _, b := range tr.dec.FasterOn {
			r.fasterOn[b]++
		}
		if tr.dec.Settled {
			r.settled++
			if tr.pairs <= 8 {
				r.within8++
			}
		}
		r.pairs += tr.pairs
		r.maxPairs = max(r.maxPairs, tr.pairs)
		if tr.codeflash {
			r.codeflash++
		}
		if tr.codeflashABBA {
			r.codeflashABBA++
		}
	}
	return r
}

// Trials per scenario of TestSim_Targets. False positives are rare by
// design, so that scenario gets more trials, to measure its rate to a tenth
// of a percent. Under the race detector (ten times slower) or -short, every
// scenario gets the smaller count. That is still over the 1000 that issue 3
// asks for.
const (
	simTrials   = 1200
	simTrialsAA = 6000
)

// upper95 is the Wilson score upper bound of a 95% interval for a rate seen
// k times in n trials.
func upper95(k, n int) float64 {
	const z = 1.96
	p, nf := float64(k)/float64(n), float64(n)
	centre := p + z*z/(2*nf)
	half := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf))
	return (centre + half) / (1 + z*z/nf)
}

// TestSim_Targets checks issue 3's targets at default settings (min speedup
// 5%, alpha 0.05, 6..30 pairs) on the pinned machine, with 1, 2 and 3
// benchmarks in turn.
func TestSim_Targets(t *testing.T) {
	seq := Sequential{MinSpeedup: DefaultMinSpeedup}
	trials, trialsAA := simTrials, simTrialsAA
	if testing.Short() || raceEnabled {
		trialsAA = simTrials
	}
	run := func(speedup float64, n int) rates {
		return simulate(scenario{m: pinned, speedup: speedup}, seq, n, 1)
	}
	aa, p08, p15, p2 := run(1, trialsAA), run(1.08, trials), run(1.15, trials), run(2, trials)
	t.Logf("pinned machine (pair σ %.3f, %.0f%% of samples slowed 1.5–3×, drift up to ±%.0f%%), 1–3 benchmarks in turn:",
		pinned.Sigma*math.Sqrt2, 100*pinned.Outliers, 100*pinned.Drift)
	t.Logf("A/A    %v  (%d trials)", aa, aa.trials)
	t.Logf("1.08×  %v  (%d trials)", p08, p08.trials)
	t.Logf("1.15×  %v  (%d trials)", p15, p15.trials)
	t.Logf("2×     %v  (%d trials)", p2, p2.trials)
	wrong := aa.wrong()
	fp := aa.frac(wrong)
	t.Logf("A/A false positives: ours %.2f%% (95%% upper bound %.2f%%); codeflash's rule %.2f%% with its baseline measured first, %.2f%% on our interleaved samples",
		100*fp, 100*upper95(wrong, aa.trials), 100*aa.frac(aa.codeflash), 100*aa.frac(aa.codeflashABBA))
	t.Logf("power: 8%% %.1f%%, 15%% %.1f%%; 2× settled faster within 8 pairs in %.1f%% (mean %.2f pairs, max %d); mean pairs A/A %.1f, 8%% %.1f, 15%% %.1f",
		p08.pct(Faster), p15.pct(Faster), 100*p2.frac(p2.within8), p2.meanPairs(), p2.maxPairs,
		aa.meanPairs(), p08.meanPairs(), p15.meanPairs())

	if fp > 0.01 {
		t.Errorf("A/A false-positive rate %.2f%%, want at most 1%%", 100*fp)
	}
	if aa.frac(aa.codeflash) <= fp {
		t.Errorf("codeflash's rule made %.2f%% false positives, no more than ours (%.2f%%): the comparison has lost its point",
			100*aa.frac(aa.codeflash), 100*fp)
	}
	if got := p15.pct(Faster); got < 95 {
		t.Errorf("power for a true 15%% speedup %.1f%%, want at least 95%%", got)
	}
	if got := p08.pct(Faster); got < 80 {
		t.Errorf("power for a true 8%% speedup %.1f%%, want at least 80%%", got)
	}
	if p2.pct(Faster) != 100 || p2.meanPairs() > 8.2 || p2.frac(p2.within8) < 0.97 {
		t.Errorf("2× speedup: faster %.1f%%, mean %.2f pairs, within 8 pairs %.1f%%; want 100%%, about 8, nearly all",
			p2.pct(Faster), p2.meanPairs(), 100*p2.frac(p2.within8))
	}
}

// TestSim_Grid shows where the method stands beyond the targets' machine:
// each number of benchmarks on its own, noisier machines, slower and mixed
// candidates. It asserts only what must hold everywhere: false positives
// stay rare.
func TestSim_Grid(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("a few seconds of simulation; the targets are checked by TestSim_Targets")
	}
	const trials = 600
	seq := Sequential{MinSpeedup: DefaultMinSpeedup}
	var b strings.Builder
	for _, sigma := range []float64{0.035, 0.05, 0.1} {
		m := pinned
		m.Sigma = sigma
		for _, nb := range []int{1, 2, 3} {
			for _, sp := range []float64{1, 1.08, 1.15, 1.25, 2, 0.5} {
				r := simulate(scenario{m: m, benches: nb, speedup: sp}, seq, trials, 2)
				fmt.Fprintf(&b, "pair σ %.3f  %d bench  %4.2f×  %v\n", sigma*math.Sqrt2, nb, sp, r)
				if sp == 1 && r.frac(r.wrong()) > 0.015 {
					t.Errorf("pair σ %.3f, %d benchmarks: A/A false positives %.1f%%", sigma*math.Sqrt2, nb, 100*r.frac(r.wrong()))
				}
			}
		}
	}
	// Mixed: much faster overall, one benchmark 15% slower.
	mixed := simulate(scenario{m: pinned, benches: 3, each: []float64{1.5, 1.5, 1 / 1.15}}, seq, trials, 3)
	fmt.Fprintf(&b, "pinned, 3 bench, 1.5× 1.5× 0.87×  %v\n", mixed)
	t.Logf("%d trials each:\n%s", trials, b.String())
	if mixed.pct(Mixed) < 50 || mixed.pct(Faster) > 10 {
		t.Errorf("mixed candidate: mixed %.1f%%, faster %.1f%%", mixed.pct(Mixed), mixed.pct(Faster))
	}
}

// TestSim_Order compares the two orders of a pair's samples on a machine
// whose noise comes in bursts. The project's shared 2-core machine is one:
// the bench/accuracy harness measured a lag-1 autocorrelation of 0.54 and a
// pair σ of 0.10–0.13 there. In ABBA order the same side ends one round and
// starts the next. So a burst moves neighbouring pairs the same way, which
// the signed-rank test does not allow for. With the side drawn at random for
// each pair, the labels are a fair coin whatever the noise does, and the
// test is exact under A/A.
func TestSim_Order(t *testing.T) {
	trials := 3000
	if testing.Short() || raceEnabled {
		trials = 600
	}
	seq := Sequential{MinSpeedup: DefaultMinSpeedup}
	bursty := machine{Sigma: 0.08, Outliers: 0.03, Drift: 0.05, Burst: 0.5}
	var b strings.Builder
	var fp [2]float64
	for i, abba := range []bool{true, false} {
		name := "random"
		if abba {
			name = "ABBA"
		}
		for _, sp := range []float64{1, 1.15, 1.25, 2} {
			n := trials
			if sp != 1 {
				n = trials / 3
			}
			r := simulate(scenario{m: bursty, benches: 1, speedup: sp, abba: abba}, seq, n, 4)
			fmt.Fprintf(&b, "%-6s %4.2f×  %v\n", name, sp, r)
			if sp == 1 {
				fp[i] = r.frac(r.wrong())
			}
		}
	}
	t.Logf("bursty machine (pair σ %.3f, lag-1 autocorrelation %.1f), 1 benchmark, %d A/A trials:\n%s",
		bursty.Sigma*math.Sqrt2, bursty.Burst, trials, b.String())
	if fp[1] > 0.01 {
		t.Errorf("random order: A/A false positives %.2f%% on bursty noise, want at most 1%%", 100*fp[1])
	}
}

// TestSim_Subset checks the verdicts across many benchmarks (issue 13). On
// 13 benchmarks, identical code must almost never be called faster on a
// subset, slower or mixed, although each benchmark is a claim of its own. A
// change that is faster on 2 of the 13 and unchanged on the rest must be
// found. A change 1.9× faster on one benchmark and 2× slower on another,
// whose aggregate is unchanged, must be called mixed.
func TestSim_Subset(t *testing.T) {
	trialsAA, trials := 3000, 400
	if testing.Short() || raceEnabled {
		trialsAA, trials = 600, 100
	}
	seq := Sequential{MinSpeedup: DefaultMinSpeedup}
	of13 := func(fast float64) []float64 {
		each := make([]float64, 13)
		for b := range each {
			each[b] = 1
		}
		each[0], each[1] = fast, fast
		return each
	}
	aa := simulate(scenario{m: pinned, benches: 13, speedup: 1}, seq, trialsAA, 5)
	aa4 := simulate(scenario{m: pinned, benches: 4, speedup: 1}, seq, trialsAA, 6)
	sub25 := simulate(scenario{m: pinned, benches: 13, each: of13(2.5)}, seq, trials, 7)
	sub13 := simulate(scenario{m: pinned, benches: 13, each: of13(1.3)}, seq, trials, 8)
	mixed := simulate(scenario{m: pinned, benches: 4, each: []float64{1.89, 1, 1, 0.49}}, seq, trials, 9)
	t.Logf("pinned machine:\nA/A 13 bench    %v  (%d trials)\nA/A 4 bench     %v  (%d trials)\n2.5× on 2 of 13 %v\n1.3× on 2 of 13 %v\n1.89×,1,1,0.49× %v",
		aa, aa.trials, aa4, aa4.trials, sub25, sub13, mixed)
	for _, r := range []rates{aa, aa4} {
		if fp := r.frac(r.wrong()); fp > 0.01 {
			t.Errorf("A/A false positives %.2f%% over many benchmarks, want at most 1%%: %v", 100*fp, r)
		}
	}
	for name, r := range map[string]rates{"2.5×": sub25, "1.3×": sub13} {
		if found := r.frac(r.subset + r.verdicts[Faster]); found < 0.95 {
			t.Errorf("%s on 2 of 13: found faster (overall or on the subset) in %.1f%%, want at least 95%%: %v", name, 100*found, r)
		}
		if r.verdicts[Mixed]+r.verdicts[Slower] > 0 {
			t.Errorf("%s on 2 of 13: called mixed or slower: %v", name, r)
		}
	}
	if mixed.pct(Mixed) < 95 {
		t.Errorf("1.89× and 0.49× with a flat aggregate: mixed in %.1f%%, want at least 95%%: %v", mixed.pct(Mixed), mixed)
	}
}

// TestSim_SampleLength asks what shorter samples with more pairs, at the
// same time cost, do to the sequential test (issue 13). A sample is 1/f the
// default length, with f times the most pairs (30, 60, 120 looks' worth).
// How the noise scales with the sample's length depends on the machine, and
// bench/power measures it (docs/measuring.md, "Sample length"). Here three
// models bracket it on the bursty machine of TestSim_Order. In the first,
// noise averages out within a sample (σ grows by √f). In the second, bursts
// last in real time: the lag-1 autocorrelation of a sample f times shorter
// is φ^(1/f). In the third, noise is fixed per process: σ does not shrink
// with the length, as a process's start-up and placement do not. It asserts
// only what a change of the default must keep: A/A false positives at most
// 1% with the looks spread over more pairs.
func TestSim_SampleLength(t *testing.T) {
	testenv.Once(t) // a minute of CPU: 120 looks a trial at the shortest
	if testing.Short() || raceEnabled {
		t.Skip("a minute of simulation; the targets are checked by TestSim_Targets")
	}
	const trialsAA, trials = 2000, 400
	bursty := machine{Sigma: 0.08, Outliers: 0.03, Drift: 0.05, Burst: 0.5}
	var b strings.Builder
	for _, f := range []float64{1, 2, 4} {
		seq := Sequential{MinSpeedup: DefaultMinSpeedup, MaxPairs: int(DefaultMaxPairs * f)}
		for _, model := range []string{"averaging", "per process"} {
			m := bursty
			m.Burst = math.Pow(bursty.Burst, 1/f)
			if model == "averaging" {
				m.Sigma = bursty.Sigma * math.Sqrt(f)
			}
			aa := simulate(scenario{m: m, benches: 1, speedup: 1}, seq, trialsAA, 10)
			fmt.Fprintf(&b, "1/%.0f × %3d pairs, %-11s A/A    %v\n", f, seq.MaxPairs, model, aa)
			for _, sp := range []float64{1.08, 1.15} {
				r := simulate(scenario{m: m, benches: 1, speedup: sp}, seq, trials, 11)
				fmt.Fprintf(&b, "1/%.0f × %3d pairs, %-11s %4.2f×  %v\n", f, seq.MaxPairs, model, sp, r)
			}
			if fp := aa.frac(aa.wrong()); fp > 0.01 {
				t.Errorf("samples 1/%.0f, %d pairs, %s noise: A/A false positives %.2f%%, want at most 1%%: %v", f, seq.MaxPairs, model, 100*fp, aa)
			}
		}
	}
	t.Logf("bursty machine (pair σ %.3f at the default length, lag-1 autocorrelation %.1f), 1 benchmark, %d A/A and %d A/B trials each:\n%s",
		bursty.Sigma*math.Sqrt2, bursty.Burst, trialsAA, trials, b.String())
}

// TestSim_Claims checks per-benchmark claims in a job of 8 benchmarks
// (issue 36). A benchmark 3× faster is claimed faster, by name, though the
// correction for 8 benchmarks puts its first claim at 10 pairs. Identical
// code has no benchmark claimed, faster or slower, at a rate above the
// level.
func TestSim_Claims(t *testing.T) {
	trialsAA, trials := 2000, 300
	if testing.Short() || raceEnabled {
		trialsAA, trials = 500, 100
	}
	seq := Sequential{MinSpeedup: DefaultMinSpeedup}
	two := []float64{3, 3, 1, 1, 1, 1, 1, 1}
	aa := simulate(scenario{m: pinned, benches: 8, speedup: 1}, seq, trialsAA, 12)
	ab := simulate(scenario{m: pinned, benches: 8, each: two}, seq, trials, 13)
	t.Logf("pinned machine, 8 benchmarks:\nA/A             %v  benchmarks claimed in %.2f%% (%d trials)\n3× on 2 of 8    %v  both claimed faster in %.1f%% (%d trials)",
		aa, 100*aa.frac(aa.rowClaims), aa.trials, ab, 100*ab.frac(min(ab.fasterOn[0], ab.fasterOn[1])), ab.trials)
	if fp := aa.frac(aa.rowClaims + aa.wrong()); fp > seq.withDefaults().Alpha {
		t.Errorf("A/A with 8 benchmarks: a claim in %.2f%% of trials, above the level %v: %v", 100*fp, seq.withDefaults().Alpha, aa)
	}
	for b := range two {
		want := 0
		if two[b] > 1 {
			want = ab.trials
		}
		if got := ab.fasterOn[b]; got < want*99/100 || want == 0 && got > ab.trials/100 {
			t.Errorf("3× on 2 of 8: benchmark %d (true %v×) claimed faster in %d of %d trials", b, two[b], got, ab.trials)
		}
	}
}
