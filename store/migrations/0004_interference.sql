-- 0004: how much other work shared the machine during each benchmark sample.
--
-- other_cpu is the fraction of the benchmark CPU's time (of the whole
-- machine's, when samples are not pinned) that went to processes other than
-- the benchmark and optimizer itself, from /proc/stat and getrusage; steal
-- is the fraction the hypervisor took; invol_switches counts the benchmark
-- processes' involuntary context switches (rusage). All are 0 where they
-- could not be read, and probed is then 0.

ALTER TABLE bench_samples ADD COLUMN other_cpu REAL NOT NULL DEFAULT 0;
ALTER TABLE bench_samples ADD COLUMN steal REAL NOT NULL DEFAULT 0;
ALTER TABLE bench_samples ADD COLUMN invol_switches INTEGER NOT NULL DEFAULT 0;
ALTER TABLE bench_samples ADD COLUMN probed INTEGER NOT NULL DEFAULT 0;
