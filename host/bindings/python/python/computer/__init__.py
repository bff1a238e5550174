"""A computer for AI agents, in process.

A :class:`Workspace` is a persistent filesystem in one SQLite file, shared by a
bash-compatible shell compiled to WebAssembly (the isolate: starts in microseconds), Docker
containers for native programs, and git run by the host::

    import computer

    ws = computer.Workspace.open("agent.db")      # or computer.Workspace.memory()
    ws.fs.write_text("notes.md", "# hello\\n")      # relative paths start at /workspace
    r = ws.exec("wc -l notes.md")
    print(r.status, r.text)

Every call releases the GIL while the workspace works. In the main thread, Ctrl-C
(``KeyboardInterrupt``) stops a running command; ``exec_async`` and friends run in a worker
thread and stop the command when their task is cancelled.
"""

from __future__ import annotations

from ._computer import (
    BucketStats,
    Cancel,
    ComputerError,
    Entry,
    Event,
    ExecResult,
    ExecStream,
    Fs,
    Git,
    GitResult,
    Job,
    LimitExceeded,
    Net,
    Session,
    Snapshot,
    Stat,
    Tools,
    Workspace,
    __version__,
)

__all__ = [
    "BucketStats",
    "Cancel",
    "ComputerError",
    "Entry",
    "Event",
    "ExecResult",
    "ExecStream",
    "Fs",
    "Git",
    "GitResult",
    "Job",
    "LimitExceeded",
    "Net",
    "Session",
    "Snapshot",
    "Stat",
    "Tools",
    "Workspace",
    "__version__",
]
