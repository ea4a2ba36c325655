-- 0001: the initial schema.
--
-- Times are UTC text in RFC 3339 with nine fraction digits, for example
-- 2026-01-02T15:04:05.123456789Z: SQLite's date functions read it, and text
-- order is time order. A time not yet known (jobs.finished) is NULL.
-- jobs.config, jobs.report, candidates.failure, candidates.result and
-- profiles.summary hold JSON text, NULL for none, so that json_extract works
-- on them. An empty test_results.candidate means base.

CREATE TABLE jobs (
    id       TEXT PRIMARY KEY,
    kind     TEXT NOT NULL,
    repo     TEXT NOT NULL,
    base     TEXT NOT NULL,
    parallel INTEGER NOT NULL,
    pid      INTEGER NOT NULL,
    config   TEXT,
    state    TEXT NOT NULL,
    winner   TEXT NOT NULL DEFAULT '',
    report   TEXT,
    error    TEXT NOT NULL DEFAULT '',
    started  TEXT NOT NULL,
    finished TEXT
) STRICT;

CREATE INDEX jobs_started ON jobs (started);
CREATE INDEX jobs_state ON jobs (state);

CREATE TABLE candidates (
    job_id       TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    seq          INTEGER NOT NULL,
    name         TEXT NOT NULL,
    content_id   TEXT NOT NULL DEFAULT '',
    source       TEXT NOT NULL DEFAULT '',
    parent       TEXT NOT NULL DEFAULT '',
    explanation  TEXT NOT NULL DEFAULT '',
    verdict      TEXT NOT NULL DEFAULT '',
    duplicate_of TEXT NOT NULL DEFAULT '',
    speedup      REAL NOT NULL DEFAULT 0,
    ci_low       REAL NOT NULL DEFAULT 0,
    ci_high      REAL NOT NULL DEFAULT 0,
    pairs        INTEGER NOT NULL DEFAULT 0,
    seconds      REAL NOT NULL DEFAULT 0,
    failure_kind TEXT NOT NULL DEFAULT '',
    failure      TEXT,
    result       TEXT,
    updated      TEXT NOT NULL,
    PRIMARY KEY (job_id, name)
) STRICT;

CREATE INDEX candidates_job_seq ON candidates (job_id, seq);

CREATE TABLE test_results (
    id        INTEGER PRIMARY KEY,
    job_id    TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    candidate TEXT NOT NULL,
    package   TEXT NOT NULL,
    test      TEXT NOT NULL,
    status    TEXT NOT NULL,
    output    TEXT NOT NULL DEFAULT ''
) STRICT;

CREATE INDEX test_results_job_candidate ON test_results (job_id, candidate);

-- One row per raw sample: any figure in a report can be recomputed from here.
CREATE TABLE bench_samples (
    id         INTEGER PRIMARY KEY,
    job_id     TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    candidate  TEXT NOT NULL,
    benchmark  TEXT NOT NULL,
    unit       TEXT NOT NULL,
    side       TEXT NOT NULL CHECK (side IN ('base', 'candidate')),
    round      INTEGER NOT NULL,
    run_order  INTEGER NOT NULL,
    value      REAL NOT NULL,
    iterations INTEGER NOT NULL
) STRICT;

CREATE INDEX bench_samples_job_candidate ON bench_samples (job_id, candidate);

CREATE TABLE bench_results (
    id        INTEGER PRIMARY KEY,
    job_id    TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    candidate TEXT NOT NULL,
    benchmark TEXT NOT NULL,
    unit      TEXT NOT NULL,
    verdict   TEXT NOT NULL,
    base      REAL NOT NULL,
    value     REAL NOT NULL,
    speedup   REAL NOT NULL,
    ci_low    REAL NOT NULL,
    ci_high   REAL NOT NULL,
    p         REAL NOT NULL,
    pairs     INTEGER NOT NULL
) STRICT;

CREATE INDEX bench_results_job_candidate ON bench_results (job_id, candidate);

CREATE TABLE profiles (
    id        INTEGER PRIMARY KEY,
    job_id    TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    candidate TEXT NOT NULL,
    kind      TEXT NOT NULL,
    base_path TEXT NOT NULL DEFAULT '',
    path      TEXT NOT NULL,
    summary   TEXT,
    created   TEXT NOT NULL
) STRICT;

CREATE INDEX profiles_job ON profiles (job_id);

CREATE TABLE events (
    id        INTEGER PRIMARY KEY,
    job_id    TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    time      TEXT NOT NULL,
    kind      TEXT NOT NULL,
    candidate TEXT NOT NULL DEFAULT '',
    message   TEXT NOT NULL DEFAULT ''
) STRICT;

CREATE INDEX events_job_time ON events (job_id, time);

-- The baseline-tests cache: one opaque blob per key, not tied to a job.
CREATE TABLE baselines (
    key     TEXT PRIMARY KEY,
    value   BLOB NOT NULL,
    updated TEXT NOT NULL
) STRICT;
