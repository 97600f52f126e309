"""The parts the scheduler (`sfn_emulator.engine.scheduler.Engine`) is made of, one job each:
`timers` (the heap), `time_rule` (when auto mode moves time), `fibers` (stepping interpreters, the
run queue, forks), `callbacks` (task tokens and activities: the tables other threads touch),
`map_runs` (Distributed Map child executions) and `lifecycle` (start, stop, redrive, close).
All of them run on the engine thread unless a method says otherwise."""
