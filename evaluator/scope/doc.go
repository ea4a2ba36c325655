// Package scope picks the benchmarks a candidate is measured on: those that
// execute a function it changes. [Changed] reads the functions a candidate
// changes from its diff against base and the changed files' syntax trees.
// [Pick] matches them against what each benchmark executes at base:
// gobench.Cover, one run of one iteration with coverage. A change outside
// any function scopes every benchmark. One that no benchmark executes
// scopes none, and names the closest.
package scope
