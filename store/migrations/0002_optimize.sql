-- 0002: the optimisation loop (optimizer optimize). A run is rounds of
-- generator calls and jobs; lineage says where each candidate came from.
-- Times and JSON as in 0001.

CREATE TABLE optimize_runs (
    id       TEXT PRIMARY KEY,
    repo     TEXT NOT NULL,
    base     TEXT NOT NULL,
    config   TEXT,
    state    TEXT NOT NULL,
    winner   TEXT NOT NULL DEFAULT '',
    report   TEXT,
    started  TEXT NOT NULL,
    finished TEXT
) STRICT;

-- One call of a generator: what it was asked, how it ended, what it said.
CREATE TABLE generator_calls (
    id         INTEGER PRIMARY KEY,
    run_id     TEXT NOT NULL REFERENCES optimize_runs (id) ON DELETE CASCADE,
    round      INTEGER NOT NULL,
    generator  TEXT NOT NULL,
    mode       TEXT NOT NULL,
    target     TEXT NOT NULL DEFAULT '',
    parent     TEXT NOT NULL DEFAULT '',
    request    TEXT,
    exit_code  INTEGER NOT NULL,
    seconds    REAL NOT NULL,
    stderr     TEXT NOT NULL DEFAULT '',
    error      TEXT NOT NULL DEFAULT '',
    candidates INTEGER NOT NULL DEFAULT 0,
    started    TEXT NOT NULL
) STRICT;

CREATE INDEX generator_calls_run ON generator_calls (run_id, round);

-- One candidate of a run: its generator, round, mode and parent, the job
-- that judged it, and the verdict it got there.
CREATE TABLE lineage (
    run_id      TEXT NOT NULL REFERENCES optimize_runs (id) ON DELETE CASCADE,
    candidate   TEXT NOT NULL,
    generator   TEXT NOT NULL,
    round       INTEGER NOT NULL,
    mode        TEXT NOT NULL,
    parent      TEXT NOT NULL DEFAULT '',
    target      TEXT NOT NULL DEFAULT '',
    job_id      TEXT NOT NULL DEFAULT '',
    content_id  TEXT NOT NULL DEFAULT '',
    verdict     TEXT NOT NULL DEFAULT '',
    speedup     REAL NOT NULL DEFAULT 0,
    PRIMARY KEY (run_id, candidate)
) STRICT;
