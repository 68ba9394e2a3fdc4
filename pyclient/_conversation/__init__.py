"""The conversation machine, sans-I/O: events in, "what next" out. The history assembled from
events, the lifecycle tables of runs, calls, interrupts, subagents and saves, the saved form of
a thread, and the `Action`/`Interrupt` handles a page answers through. Imports the floors
below it, never a clock, a socket or a task.
"""
