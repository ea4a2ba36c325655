-- 0010: the settings a job is read back by, as columns.
--
-- jobs.min_speedup is the threshold the job judged with, as a fraction
-- (0.05 for 5%), the unit of the report's min_speedup. jobs.artifacts is
-- the directory that holds the job's kept changes and profiles, which
-- optimizer apply reads. Both were read from jobs.config, the recorded
-- configuration's JSON, which holds min_speedup in percent; older rows are
-- filled from it, with the default 5% where it says none.

ALTER TABLE jobs ADD COLUMN min_speedup REAL NOT NULL DEFAULT 0.05;
ALTER TABLE jobs ADD COLUMN artifacts TEXT NOT NULL DEFAULT '';

UPDATE jobs SET
  min_speedup = coalesce(json_extract(config, '$.min_speedup') / 100.0, 0.05),
  artifacts = coalesce(json_extract(config, '$.artifacts'), '')
WHERE json_valid(config);
