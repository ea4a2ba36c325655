package profiler

import "errors"

// The errors callers can recognise with errors.Is.
var (
	// ErrNoProfileOut is returned by Capture when neither Out nor MemOut is set.
	ErrNoProfileOut = errors.New("no profile to write: set Out or MemOut")
	// ErrNoBenchmark is returned by Capture when the binary ran no
	// benchmark: the pattern matched none.
	ErrNoBenchmark = errors.New("no benchmark ran")
	// ErrNoSamples is returned by Summarize for a profile without samples.
	ErrNoSamples = errors.New("profile has no samples")
	// ErrSampleType is returned by Summarize for a profile without the
	// sample type needed: cpu for a CPU profile, alloc_space for a memory
	// profile.
	ErrSampleType = errors.New("profile lacks the sample type")
	// ErrNoCommand is returned by Command for an empty command line.
	ErrNoCommand = errors.New("no profile command")
)
