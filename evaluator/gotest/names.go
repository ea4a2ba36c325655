package gotest

import (
	"fmt"
	"path"
	"strings"
)

// Names shortens test keys for people to read: "sumsq.TestSumSquares" for
// "example.com/fixture/sumsq.TestSumSquares", with subtests folded into
// their top-level test as "sumsq.TestSumSquares (4 subtests)", and one
// alone named: "sumsq.TestSumSquares/one". A package-level key becomes the
// package's last path element. The order of first appearance is kept. Keys
// stay whole in Failure.Tests, for tools.
func Names(keys []string) []string {
	var order []string
	subs := map[string]int{}
	firstSub := map[string]string{} // the first subtest's path below its top-level test
	for _, key := range keys {
		pkg, test := SplitKey(key)
		top, sub, isSub := strings.Cut(test, "/")
		var name string
		switch {
		case pkg == "":
			name = top
		case test == "":
			name = path.Base(pkg)
		default:
			name = path.Base(pkg) + "." + top
		}
		if _, seen := subs[name]; !seen {
			order = append(order, name)
			subs[name] = 0
		}
		if isSub {
			subs[name]++
			if subs[name] == 1 {
				firstSub[name] = sub
			}
		}
	}
	for i, name := range order {
		switch n := subs[name]; n {
		case 0:
		case 1:
			order[i] = name + "/" + firstSub[name]
		default:
			order[i] = fmt.Sprintf("%s (%d subtests)", name, n)
		}
	}
	return order
}
