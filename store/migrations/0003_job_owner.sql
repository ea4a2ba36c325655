-- 0003: the start time of a job's owner process, beside its PID.
--
-- A PID alone cannot tell whether a job's process still runs: the kernel
-- reuses PIDs, and an unrelated process holding the old one kept the job
-- "running" for ever. owner_start is the start time the process package reads
-- (on Linux, field 22 of /proc/PID/stat: clock ticks since boot), '' where
-- it is not known; then the PID alone decides, as before.

ALTER TABLE jobs ADD COLUMN owner_start TEXT NOT NULL DEFAULT '';
