-- 0009: the daemon's job events, kept with the job (issue 34.6).
--
-- One row per event the daemon published for a job of its queue: seq is
-- the event's SSE id (unique and increasing across daemon restarts), data
-- the event as the API sends it (JSON). A stream resumed with a
-- Last-Event-ID from before a restart replays the rows after it, so that
-- a finished job's stream is its real events. A job's rows go with it.
--
-- queue_run_id finds a job by the id it has in the repository's store,
-- which older daemons gave it apart from its queue id.

CREATE TABLE queue_events (
  seq  INTEGER PRIMARY KEY,
  job  TEXT NOT NULL REFERENCES queue (id) ON DELETE CASCADE,
  data TEXT NOT NULL
) STRICT;

CREATE INDEX queue_events_job ON queue_events (job, seq);
CREATE INDEX queue_run_id ON queue (run_id);
