-- 0007: jobs spread over machines (issue 19).
--
-- jobs.shards is '' for a job run whole. A shard run (optimizer run --shard
-- K/N) records the shard it evaluated, "K/N"; a merged store's job records
-- every shard merged into it, sorted and comma-separated ("1/3,2/3,3/3").
-- jobs.test is the effective test command, which merge compares.
-- candidates.change is the JSON of a candidate's change ({"patch": …,
-- "files": …, "deleted": …}), kept when it passed its tests, so that
-- optimizer bench can stage it on another machine; NULL otherwise.
-- bench_samples.host_* name the machine a sample was taken on: its
-- hostname, CPU model, kernel release and Go version. A job's samples all
-- come from one host: a pair split across hosts measures the hosts.

ALTER TABLE jobs ADD COLUMN shards TEXT NOT NULL DEFAULT '';
ALTER TABLE jobs ADD COLUMN test TEXT NOT NULL DEFAULT '';
ALTER TABLE candidates ADD COLUMN change TEXT;
ALTER TABLE bench_samples ADD COLUMN host_name TEXT NOT NULL DEFAULT '';
ALTER TABLE bench_samples ADD COLUMN host_cpu TEXT NOT NULL DEFAULT '';
ALTER TABLE bench_samples ADD COLUMN host_kernel TEXT NOT NULL DEFAULT '';
ALTER TABLE bench_samples ADD COLUMN host_go TEXT NOT NULL DEFAULT '';
