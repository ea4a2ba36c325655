-- 0005: the daemon's durable queue of jobs.
--
-- The daemon keeps one store of its own (not a repository's); each row is a
-- job accepted over the API. The request is kept whole, as JSON, so that a
-- job can be run again after a crash. run_id names the evaluation in the
-- repository's own store (its jobs table), where history, show and report
-- read the results; a job that is run again gets a new one. seq is the
-- submission order, which the benchmark gate follows.

CREATE TABLE queue (
  seq       INTEGER PRIMARY KEY AUTOINCREMENT,
  id        TEXT NOT NULL UNIQUE,
  repo      TEXT NOT NULL,
  base      TEXT NOT NULL,
  request   TEXT NOT NULL,
  state     TEXT NOT NULL,
  submitted TEXT NOT NULL,
  started   TEXT,
  finished  TEXT,
  attempts  INTEGER NOT NULL DEFAULT 0,
  run_id    TEXT NOT NULL DEFAULT '',
  error     TEXT NOT NULL DEFAULT '',
  report    TEXT
);
CREATE INDEX queue_state ON queue (state, seq);
CREATE INDEX queue_repo ON queue (repo, seq);
