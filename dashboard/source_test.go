package dashboard

import (
	"context"
	"strconv"
	"sync"

	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/gitcmd"
	"github.com/optimizer-dev/optimizer/result"
	"github.com/optimizer-dev/optimizer/store"
)

// storeSource is the tests' Source: jobs, reports and samples from a real
// store, events from a small broker the test publishes to, and diffs from
// a map. The daemon's adapter is the real one.
type storeSource struct {
	db *store.DB

	mu      sync.Mutex
	diffs   map[string]string // job/candidate → diff
	queued  []Job             // jobs not in the store yet
	history []Event
	subs    map[chan Event]bool
	lastIDs []string // the lastEventIDs Subscribe was given
}

var _ Source = (*storeSource)(nil)

func newStoreSource(db *store.DB) *storeSource {
	return &storeSource{db: db, diffs: map[string]string{}, subs: map[chan Event]bool{}}
}

func (s *storeSource) Jobs(ctx context.Context) ([]Job, error) {
	rows, err := s.db.Jobs(ctx, 0)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	out := append([]Job(nil), s.queued...)
	s.mu.Unlock()
	for _, j := range rows {
		cands, err := s.db.Candidates(ctx, j.ID)
		if err != nil {
			return nil, err
		}
		job := Job{ID: j.ID, Kind: j.Kind, Repo: j.Repo, Base: j.Base, State: j.State, Total: len(cands),
			Winner: j.Winner, Started: j.Started, Finished: j.Finished}
		for _, c := range cands {
			if c.Verdict != "" && c.Verdict != string(result.VerdictPending) {
				job.Done++
			}
			if c.Name == j.Winner {
				job.Speedup = c.Speedup
			}
		}
		out = append(out, job)
	}
	return out, nil
}

func (s *storeSource) Job(ctx context.Context, id string) (Job, error) {
	jobs, err := s.Jobs(ctx)
	if err != nil {
		return Job{}, err
	}
	for _, j := range jobs {
		if j.ID == id {
			return j, nil
		}
	}
	return Job{}, ErrNotFound
}

// Report is the stored report, or one rebuilt from the candidates' rows
// while the job runs.
func (s *storeSource) Report(ctx context.Context, id string) (*result.Report, error) {
	j, err := s.db.Job(ctx, id)
	if err != nil {
		return nil, err
	}
	return evaluator.JobReport(ctx, s.db, j)
}

func (s *storeSource) Samples(ctx context.Context, id, cand string) ([]store.BenchSample, error) {
	return s.db.BenchSamples(ctx, id, cand)
}

func (s *storeSource) Diff(ctx context.Context, id, cand string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.diffs[id+"/"+cand], nil
}

func (s *storeSource) BaseHistory(ctx context.Context, repo string, jobs int) ([]store.BasePoint, error) {
	return s.db.BaseHistory(ctx, repo, jobs)
}

// Commits asks git in the repository's directory, as the daemon does.
func (s *storeSource) Commits(ctx context.Context, repo string, commits []string) ([]gitcmd.Commit, error) {
	return gitcmd.Repo{Root: repo}.FirstParentOrder(ctx, commits)
}

// Subscribe replays the events after lastID, then streams new ones.
func (s *storeSource) Subscribe(ctx context.Context, lastID string) (<-chan Event, error) {
	ch := make(chan Event, 64)
	s.mu.Lock()
	s.lastIDs = append(s.lastIDs, lastID)
	if lastID != "" {
		for _, e := range s.history {
			if n, _ := strconv.Atoi(e.ID); n > atoi(lastID) {
				ch <- e
			}
		}
	}
	s.subs[ch] = true
	s.mu.Unlock()
	out := make(chan Event)
	go func() { // owned by the subscription: ends with ctx
		defer close(out)
		defer func() {
			s.mu.Lock()
			delete(s.subs, ch)
			s.mu.Unlock()
		}()
		for {
			select {
			case <-ctx.Done():
				return
			case e := <-ch:
				select {
				case out <- e:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return out, nil
}

// publish sends an event to every subscriber, dropping it for a full one.
func (s *storeSource) publish(job, kind string) Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := Event{ID: strconv.Itoa(len(s.history) + 1), Job: job, Kind: kind}
	s.history = append(s.history, e)
	for ch := range s.subs {
		select {
		case ch <- e:
		default:
		}
	}
	return e
}

// subscribers is how many subscriptions are open.
func (s *storeSource) subscribers() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.subs)
}

func (s *storeSource) setDiff(job, cand, diff string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.diffs[job+"/"+cand] = diff
}

// atoi reads an event id; one that is not a number is 0, before them all.
func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
