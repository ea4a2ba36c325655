-- 0008: the history an ETA starts from (issue 12.5).
--
-- jobs.bench_key names a job's benchmark settings and machine (the
-- evaluator hashes them: the bench command and filter, the pair limits,
-- the threshold, the budget, the host): a later job with the same key on
-- the same repo expects its benchmarks to take about as many pairs as
-- these did (DB.BenchHistory). '' for a job recorded before, or one with
-- no benchmarks.

ALTER TABLE jobs ADD COLUMN bench_key TEXT NOT NULL DEFAULT '';
CREATE INDEX jobs_repo_bench_key ON jobs (repo, bench_key, started);
