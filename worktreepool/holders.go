package worktreepool

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/optimizer-dev/optimizer/proc"
)

// A holder of the machine lock leaves a record beside it, in the directory
// <lock>.holders, one JSON file per hold: which process, doing what, for
// which repository, since when. A waiter checks the records against the
// kernel's own list of who holds the lock (/proc/locks on Linux). So it can
// say who it waits for: an optimizer, a process that is not one (it left no
// record), or a stale record whose process is gone.

// The things a holder records that it is doing.
const (
	WhatBenchmarking = "benchmarking"         // holds the machine alone
	WhatTesting      = "testing"              // holds a shared slot
	WhatWaiting      = "waiting to benchmark" // holds the gate, waiting for the lock
)

// Holder is one process that holds the machine lock or its gate, or a record
// that says so.
type Holder struct {
	PID     int
	Command string    // the process's name, "" when it cannot be read
	What    string    // from its record; "" when it left none
	Repo    string    // from its record
	Since   time.Time // from its record
	// Exclusive is set for a holder that keeps every other out: a benchmark,
	// or an exclusive waiter at the gate.
	Exclusive bool
	// Record is set when the holder left a record: it is an optimizer.
	Record bool
	// Stale is set for a record whose process is gone or, as far as the
	// kernel says, does not hold the lock.
	Stale bool
	Gone  bool // for a stale record: its process is gone
}

// String says who the holder is, for a person waiting on it.
func (h Holder) String() string {
	since := ""
	if !h.Since.IsZero() {
		since = ", since " + h.Since.Local().Format("15:04")
	}
	switch {
	case h.Stale && h.Gone:
		return fmt.Sprintf("a stale holder record names optimizer pid %d (%s %s%s), but that process is gone", h.PID, h.What, h.Repo, since)
	case h.Stale:
		return fmt.Sprintf("a stale holder record names optimizer pid %d (%s %s%s), but that process does not hold the lock", h.PID, h.What, h.Repo, since)
	case h.Record:
		return fmt.Sprintf("optimizer pid %d is %s %s%s", h.PID, h.What, h.Repo, since)
	}
	name := ""
	if h.Command != "" {
		name = " (" + h.Command + ")"
	}
	return fmt.Sprintf("pid %d%s holds the lock and left no holder record: it is not an optimizer, or one older than holder records; "+
		"see what it is with `ps -o pid,lstart,args -p %d` or `ls -l /proc/%d/exe`", h.PID, name, h.PID, h.PID)
}

// MachineWait is what a holder of a pool waiting for the machine lock
// knows about why.
type MachineWait struct {
	Lock      string    // the machine lock's path
	Since     time.Time // when the longest current wait began
	Exclusive bool      // a benchmark is waiting (else only shared holders)
	Holders   []Holder  // who holds the lock, then stale records
}

// String is "optimizer pid 12 is benchmarking /src/repo, since 12:03", one
// clause per holder, on one line. A holder that is not an optimizer is
// named with the lock and how to see what it is. When no holder can be
// named, it says so with the lock, the wait's start and how to find the
// holder. Stale records are left out: they hold nothing, and those of
// processes that are gone are removed as they are read, so a person has
// nothing to do about them.
func (w MachineWait) String() string {
	var parts []string
	for _, h := range w.Holders {
		if h.Stale {
			continue
		}
		s := h.String()
		if !h.Record {
			s = fmt.Sprintf("%s (the lock %s, waited for since %s)", s, w.Lock, w.Since.Local().Format("15:04:05"))
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return fmt.Sprintf("the lock %s has been held since at least %s by a process that left no holder record and that the kernel's "+
			"lock list (/proc/locks) does not show to this one, such as one in another PID namespace; find it with `fuser -v %s`",
			w.Lock, w.Since.Local().Format("15:04:05"), w.Lock)
	}
	return strings.Join(parts, "; ")
}

// recordsDir is where the holders of lock leave their records.
func recordsDir(lock string) string { return lock + ".holders" }

// holderRecord is the JSON a holder leaves.
type holderRecord struct {
	PID   int       `json:"pid"`
	What  string    `json:"what"`
	Repo  string    `json:"repo"`
	Since time.Time `json:"since"`
}

var recordSeq atomic.Int64

// writeRecord leaves a record of a hold beside lock and returns its path,
// or "" when it cannot (a waiter then names the process without it). The
// record is written whole, then renamed into place.
func writeRecord(lock, what, repo string) string {
	dir := recordsDir(lock)
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return ""
	}
	os.Chmod(dir, 0o777|os.ModeSticky) // shared by every user's optimizer, like /tmp
	b, _ := json.Marshal(holderRecord{PID: os.Getpid(), What: what, Repo: repo, Since: time.Now()})
	name := filepath.Join(dir, fmt.Sprintf("%d-%d.json", os.Getpid(), recordSeq.Add(1)))
	tmp := name + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		os.Remove(tmp)
		return ""
	}
	if err := os.Rename(tmp, name); err != nil {
		os.Remove(tmp)
		return ""
	}
	return name
}

// readRecords reads the records beside lock. Those of processes that are
// gone are removed as they are read, and returned marked stale.
func readRecords(lock string) []Holder {
	dir := recordsDir(lock)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var hs []Holder
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		b, err := os.ReadFile(path)
		if err != nil {
			continue // released meanwhile
		}
		var r holderRecord
		if json.Unmarshal(b, &r) != nil || r.PID <= 0 {
			continue // any user may write here: what is no record names no holder
		}
		h := Holder{PID: r.PID, What: r.What, Repo: r.Repo, Since: r.Since, Record: true,
			Exclusive: r.What != WhatTesting}
		if !proc.Exists(r.PID) {
			h.Stale, h.Gone = true, true
			os.Remove(path)
		}
		hs = append(hs, h)
	}
	return hs
}

// Holders says who holds the machine lock at path, or its gate. It lists
// the live records, then each process the kernel lists as a holder that
// left no record, then the stale records. Without a kernel list (not
// Linux), the records alone say.
func Holders(path string) []Holder {
	records := readRecords(path)
	locked, ok := flockHolders(path)
	if gate, gok := flockHolders(path + ".gate"); gok {
		for pid, ex := range gate {
			locked[pid] = locked[pid] || ex
		}
	}
	var live, unnamed, stale []Holder
	named := map[int]bool{}
	for _, h := range records {
		if !h.Stale && ok {
			if _, held := locked[h.PID]; !held {
				h.Stale = true
			}
		}
		if h.Stale {
			stale = append(stale, h)
			continue
		}
		named[h.PID] = true
		live = append(live, h)
	}
	for pid, ex := range locked {
		if !named[pid] {
			unnamed = append(unnamed, Holder{PID: pid, Command: command(pid), Exclusive: ex})
		}
	}
	sort.Slice(live, func(a, b int) bool { return live[a].Since.Before(live[b].Since) })
	sort.Slice(unnamed, func(a, b int) bool { return unnamed[a].PID < unnamed[b].PID })
	return append(append(dedupe(live), unnamed...), dedupe(stale)...)
}

// dedupe keeps one holder per process and activity: a pool's slots each
// hold the lock, but a person waiting wants to know of the process once.
func dedupe(hs []Holder) []Holder {
	seen := map[string]bool{}
	var out []Holder
	for _, h := range hs {
		k := strconv.Itoa(h.PID) + "\x00" + h.What + "\x00" + h.Repo
		if !seen[k] {
			seen[k] = true
			out = append(out, h)
		}
	}
	return out
}

// command is the name of process pid, or "".
func command(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
