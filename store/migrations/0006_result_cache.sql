-- 0006: the result cache by content (evaluator/cache.go; docs/design.md).
--
-- A row keeps what a job learned that a later job may reuse instead of
-- running it again: kind 'tests' is a candidate's phase-1 outcome, kind
-- 'calibration' a Go benchmark's iteration counts at base, kind 'samples'
-- a candidate's benchmark pairs. key is a hash of everything that could
-- change what is kept (the evaluator builds it); job_id and candidate say
-- where it was learned; value is the evaluator's JSON. A job's rows go with
-- it.
--
-- bench_samples.reused_from names the job a sample was measured in when it
-- was reused from the cache rather than measured by the row's own job; ''
-- when the job measured it itself.

CREATE TABLE result_cache (
    key       TEXT PRIMARY KEY,
    kind      TEXT NOT NULL,
    job_id    TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    candidate TEXT NOT NULL DEFAULT '',
    value     TEXT NOT NULL,
    updated   TEXT NOT NULL
) STRICT;

CREATE INDEX result_cache_job ON result_cache (job_id);

ALTER TABLE bench_samples ADD COLUMN reused_from TEXT NOT NULL DEFAULT '';
