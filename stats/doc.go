// Package stats decides whether a candidate is really faster than base, from
// benchmark samples taken in pairs.
//
// # What flows through it
//
// The evaluator measures base and candidate interleaved, one pair at a time,
// with a coin deciding which side of each pair goes first. One round is one
// base/candidate pair for every benchmark. After each round it
// passes all the rounds so far to [Sequential.Look]. Look returns a
// [Decision]: an [Outcome], whether that verdict is settled (if so, the
// evaluator stops measuring), the aggregate [Estimate], and one Estimate per
// benchmark for the report. [Compare] is the same estimate for one
// benchmark's fixed sample at a given alpha, and [Beside] compares the
// metrics reported beside the judged one. [CodeflashRule] is codeflash's
// acceptance rule, the baseline that the bench/ harness measures this method
// against. Nothing here does I/O, and nothing here uses random numbers: the
// same samples always give the same decision.
//
// # Method
//
// Per benchmark, each pair gives a log-ratio d = ln(cand/base), and the
// speedup is base/cand = exp(-d). Pairing a candidate run with the base run
// next to it cancels slow drift in the machine's speed. The coin makes what
// drift is left within a pair change sign at random. More than that, it
// makes the test a randomization test. Under A/A the labels of a pair are a
// fair coin whatever the machine's noise does, bursts and trends included.
// So the signed-rank null distribution is exact. ABBA order cancels a linear
// trend over two rounds. But it puts the same side at both ends of a round
// boundary, so a burst of load across it moves two neighbouring pairs the
// same way. On the project's shared machine that took the A/A false-positive
// rate from 0.74% to 2.5% (the same 200 real trials, judged both ways; see
// docs/measuring.md). In the simulation the coin costs no power. On the log
// scale, 2× faster and 2× slower are symmetric, and benchmarks of any size
// can be averaged.
//
// The estimate is the Hodges–Lehmann estimate: the median of the Walsh
// averages (d[i]+d[j])/2. Its interval inverts the Wilcoxon signed-rank
// test, whose null distribution is computed exactly up to 200 pairs. P is
// the signed-rank p-value for "no change". It is exact given any ties, and it
// is not adjusted for the looks: the verdicts use the intervals.
//
// Why this and not a bootstrap or a t interval:
//   - Robust. A sample that a page-fault storm made 3× slower moves the
//     estimate by a few ranks, not by its size. A mean or t interval would
//     move with it, and codeflash's minimum over loops is moved by one lucky
//     run.
//   - Exact at small n. The interval's coverage holds for any distribution
//     that is symmetric about its centre, at 6 pairs as at 30. Paired
//     log-ratios of identical code are symmetric by construction. A
//     percentile bootstrap of 6–10 pairs undercovers.
//   - Small levels. Sequential looks need levels near 1/128. The exact
//     distribution gives them directly, where a bootstrap of 8 rounds has
//     only 6435 distinct resamples to estimate a 1/256 tail from.
//   - Deterministic. No seed to choose or report.
//
// The aggregate is the geometric mean of the speedups over benchmarks. The
// round is the unit of inference, as in a bootstrap that resamples rounds.
// Each round's mean log-ratio over benchmarks is one observation, which
// keeps whatever the benchmarks of a round share. The Hodges–Lehmann
// estimate and Wilcoxon interval of those per-round values are the
// aggregate. With several benchmarks, each benchmark's log-ratios are first
// winsorized at its median ± 3 robust standard deviations (1.4826 × MAD).
// Then one bad sample does not spoil its whole round. With three benchmarks,
// a sixth of the rounds carry such a sample. In the simulation with three
// benchmarks, the clamp raised the power for an 8% speedup from 83% to 97%.
// It cut the mean pairs of an A/A comparison from 20 to 14. The clamp's
// centre and width come from the data, so the aggregate interval is then
// only approximately exact. Its A/A false-positive rate went from 0.5% to
// 0.6%. With one benchmark nothing is clamped.
//
// # Verdicts
//
// Verdicts are as DESIGN.md defines them, with m the minimum speedup (5% by
// default):
//   - faster: the aggregate's lower bound is at least 1+m, and no
//     benchmark is significantly slower by more than the threshold.
//   - slower: the aggregate's upper bound is below 1.
//   - mixed: the benchmarks disagree in direction, whatever the
//     aggregate: some benchmark's upper bound is below 1/(1+m), while
//     another's lower bound, or the aggregate's, is at least 1+m.
//   - not-faster: everything else. Decision.Subset marks a not-faster
//     verdict that is faster beyond the threshold on some benchmarks and
//     significantly slower on none.
//
// Per-benchmark claims are corrected for the number of benchmarks k: each
// side's budget is divided by k (Bonferroni) and spent by the same plan as
// the aggregate's ([Sequential.BenchTails]). TestSim_Subset checks that the
// A/A false-positive rate over 4 and 13 benchmarks, counting every claim,
// stays below 1%.
//
// # Metrics beside the judged one
//
// A benchmark prints more than the metric the verdict rests on: Go's B/op
// and allocs/op, which are means over the iterations, or the time when
// memory is judged. [Beside] compares each with the same paired estimate
// and interval, once, at the end, with no threshold: "increased" means
// significantly increased. The family is corrected by Tarone's rule for
// discrete tests. It leaves out the metrics that cannot reach the level
// under any signs (an exact count that ties in every pair). So forty tied
// rows cost a halved allocation count nothing. A zero (no allocation)
// counts as half the smallest value seen, at most half a unit ([Positive]).
// TestBeside_AA draws six integer-valued metrics per family from one
// distribution on both sides: 3% of 2000 families had any claim.
//
// # Looking after every pair
//
// Looks run from MinPairs (6) to MaxPairs (30). Looking after every pair and
// stopping at the first significant result would raise the false-positive
// rate well above alpha. So alpha is spent across the looks by a plan fixed
// in advance (see [Sequential.LookTails]). The plan is Bonferroni in spirit:
// the levels spent sum to at most alpha, so it holds whatever the
// correlation between looks.
//
// Alpha is split between the two claims that can be wrong: 2/3 guards
// "faster" (the lower bound) and 1/3 guards "slower" (the upper bound). The
// interval of a look therefore has unequal tails. "Faster" picks the winner
// and must clear the min-speedup margin, so its power is what is scarce.
// "Slower" changes no selection, because a slower candidate and a not-faster
// one both lose, so it needs little.
//
// Each side spends a third of its budget over the first three looks, a
// twentieth spread over the middle looks, and the rest at the last look. A
// level that the exact test cannot attain at a look (6 pairs cannot give a
// 1% bound) is carried to the next look. In practice, at 8 pairs a "faster"
// claim may have one contrary pair among the 8, and a "slower" claim needs
// all 8.
//
// Look settles when:
//   - the verdict is faster or mixed, and no benchmark that looks like a
//     regression beyond the threshold is still undecided;
//   - the verdict is slower;
//   - or faster is out of reach (futility): the upper bound is below 1+m,
//     and the verdict is not-faster.
//
// None of these settles while a later look can claim a benchmark that is
// clearly faster or slower beyond the threshold but not yet claimed so at
// the corrected level. Clearly means its interval clears the threshold, or
// its estimate does with an unadjusted p-value within Alpha. With k
// benchmarks each side's budget is Alpha·share/k, and the exact test's
// smallest one-sided error from n pairs is 2^-n. So with 8 benchmarks no
// benchmark can be claimed faster before 10 pairs, while the aggregate can
// be at 8. The look waits for the pending benchmarks, so that the ones that
// changed are named (FasterOn, SlowerOn). It does not wait when every
// benchmark's estimate is beyond the threshold the way the verdict is: the
// aggregate's claim then says it of each. TestSim_Claims measures it: 3× on
// 2 of 8 benchmarks, both claimed in every trial, at 10.6 pairs on average.
//
// Futility only ever ends a comparison without a claim, so it cannot add
// false positives. Nor can waiting: each look's bounds hold at their own
// level whatever decided to take it, and the levels over all looks sum to
// at most Alpha.
//
// # Evidence
//
// The simulation test (sim_test.go) draws seeded samples that are
// log-normal. Outliers slow 3% of samples by 1.5–3×, and a slow drift of up to
// ±5% reaches both sides, in the order the coin picks. The trials use 1, 2
// and 3 benchmarks in turn. At the defaults, on a pinned machine (a paired
// log-ratio σ of 0.05, as measured pinned on the project's 2-core machine),
// it measured:
//
//	A/A called faster or slower       0.4%  (6000 trials; codeflash's rule: 3.4%)
//	true 8% speedup called faster      86%  (mean 24 pairs)
//	true 15% speedup called faster    100%  (mean 10 pairs)
//	true 2× speedup settled faster    100%  (99.3% within 8 pairs, mean 8.05)
//	A/A comparisons end after         17.7 pairs on average
//
// TestSim_Order compares the two orders on bursty noise (AR(1), lag-1
// correlation 0.5, pair σ 0.11). A/A is 0.6% with the coin and 0.9% in ABBA
// order, with the same power for 15%, 25% and 2×. The simulation's bursts
// are milder than the real machine's: there, the difference was larger.
//
// These come from
//
//	go test -v -run Sim ./stats/
//
// The same command prints a grid by noise level and number of benchmarks. The
// limits it shows are real. A true 8% speedup against a 5% threshold leaves
// 3% to resolve. With one benchmark at σ 0.05 that takes more than 30 pairs.
// Power is about 70% there, about 45% at σ 0.07, and 15% at σ 0.14. No method
// that keeps its false-positive rate can do much better with the information
// in 30 pairs. A single fixed test at 30 pairs with a 1.5% one-sided error
// finds it in 76% of trials without outliers, and in 65% with them. Clear
// changes (15% and up) are still called reliably at σ 0.07.
package stats
