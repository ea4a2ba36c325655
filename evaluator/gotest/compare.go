package gotest

import "slices"

// Diff is how a candidate's Run differs from the base's. Every list is
// sorted, and Regressed lists failures before disappearances.
type Diff struct {
	// Regressed lists the keys that passed at base and do not pass now:
	//   - tests that fail;
	//   - tests that are missing, when their package ran and built in the
	//     candidate. A test that vanished from a package that ran did not
	//     pass: it was deleted or renamed, or a panic or os.Exit ended the
	//     test binary before it ran;
	//   - packages that passed at base and now fail at package level
	//     (a panic in TestMain, an os.Exit after the tests).
	// A test that passed and is now skipped is not a regression.
	Regressed []string

	// BuildFailed lists the packages that fail to build or set up in the
	// candidate but not at base. Their tests are not in Regressed.
	BuildFailed []string

	// Vanished lists the tests that passed at base and are missing now
	// because their package did not run in the candidate, or failed to
	// build. They are not regressions by themselves.
	Vanished []string

	// NewFailures lists the keys that fail in the candidate and neither
	// passed nor failed at base. They are new tests, tests skipped at base,
	// and package-level failures of packages that did not pass at base.
	NewFailures []string
}

// Compare compares a candidate's run with the base's. A nil Run counts as
// empty.
func Compare(base, cand *Run) Diff {
	if base == nil {
		base = &Run{}
	}
	if cand == nil {
		cand = &Run{}
	}
	var d Diff
	for _, p := range cand.BuildFailed {
		if !base.buildFailed(p) {
			d.BuildFailed = append(d.BuildFailed, p)
		}
	}
	var failing, missing []string
	for key, bs := range base.Tests {
		if bs != StatusPass {
			continue
		}
		switch cand.Tests[key] {
		case StatusFail:
			failing = append(failing, key)
		case "":
			if pkg, _ := base.Split(key); cand.built(pkg) {
				missing = append(missing, key)
			} else {
				d.Vanished = append(d.Vanished, key)
			}
		}
	}
	for pkg, bs := range base.Packages {
		if bs == StatusPass && base.Tests[pkg] != StatusFail && cand.Tests[pkg] == StatusFail && !cand.buildFailed(pkg) {
			failing = append(failing, pkg)
		}
	}
	for key, cs := range cand.Tests {
		if cs != StatusFail {
			continue
		}
		if bs := base.Tests[key]; bs == StatusPass || bs == StatusFail {
			continue
		}
		if cand.buildFailed(key) || base.Packages[key] == StatusPass {
			continue // in BuildFailed or Regressed
		}
		d.NewFailures = append(d.NewFailures, key)
	}
	slices.Sort(failing)
	slices.Sort(missing)
	d.Regressed = append(failing, missing...)
	slices.Sort(d.Vanished)
	slices.Sort(d.NewFailures)
	return d
}
