package profiler

// Kinds of alignment step.
const (
	opEqual  = '='
	opDelete = '-' // a line only base has
	opInsert = '+' // a line only the winner has
)

// maxAlignCells bounds the table of the longest common subsequence; past it
// the differing middle of two versions is shown as deleted, then inserted.
const maxAlignCells = 1 << 20

// alignOp is one step of an alignment: indexes into a and b, -1 where the
// line is absent.
type alignOp struct {
	kind byte
	a, b int
}

// align lines up two versions of a function by their longest common
// subsequence of lines, as diff does. Deletions come before insertions
// where both are possible, so a replaced block reads "-" lines then "+".
func align(a, b []string) []alignOp {
	var ops []alignOp
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		ops = append(ops, alignOp{opEqual, pre, pre})
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	ops = append(ops, alignMiddle(ma, mb, pre)...)
	for k := suf; k > 0; k-- {
		ops = append(ops, alignOp{opEqual, len(a) - k, len(b) - k})
	}
	return ops
}

// alignMiddle aligns the parts of a and b between their common prefix (of
// length off) and suffix.
func alignMiddle(a, b []string, off int) []alignOp {
	var ops []alignOp
	n, m := len(a), len(b)
	if n == 0 || m == 0 || (n+1)*(m+1) > maxAlignCells {
		for i := range a {
			ops = append(ops, alignOp{opDelete, off + i, -1})
		}
		for j := range b {
			ops = append(ops, alignOp{opInsert, -1, off + j})
		}
		return ops
	}
	// lcs[i*(m+1)+j] is the LCS length of a[i:] and b[j:].
	w := m + 1
	lcs := make([]int32, (n+1)*w)
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			switch {
			case a[i] == b[j]:
				lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
			default:
				lcs[i*w+j] = max(lcs[(i+1)*w+j], lcs[i*w+j+1])
			}
		}
	}
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case a[i] == b[j]:
			ops = append(ops, alignOp{opEqual, off + i, off + j})
			i++
			j++
		case lcs[(i+1)*w+j] >= lcs[i*w+j+1]:
			ops = append(ops, alignOp{opDelete, off + i, -1})
			i++
		default:
			ops = append(ops, alignOp{opInsert, -1, off + j})
			j++
		}
	}
	for ; i < n; i++ {
		ops = append(ops, alignOp{opDelete, off + i, -1})
	}
	for ; j < m; j++ {
		ops = append(ops, alignOp{opInsert, -1, off + j})
	}
	return ops
}
