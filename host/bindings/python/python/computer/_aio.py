"""The asyncio variants of the blocking calls (``exec_async``, ``exec_stream_async``,
``call_async``): each runs the call in the loop's default executor, so the loop goes on,
and cancelling the awaiting task cancels the command."""

from __future__ import annotations

import asyncio
from typing import Any, AsyncIterator, Callable

from ._computer import Cancel


async def in_thread(call: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``call(*args, cancel=..., **kwargs)`` in a worker thread; on cancellation the command
    is cancelled, waited for (it ends within a moment), and CancelledError re-raised."""
    cancel = Cancel()
    loop = asyncio.get_running_loop()
    future = loop.run_in_executor(None, lambda: call(*args, cancel=cancel, **kwargs))
    try:
        return await asyncio.shield(future)
    except asyncio.CancelledError:
        cancel.cancel()
        try:
            await future
        except Exception:  # how the cancelled command ended does not matter any more
            pass
        raise


async def stream(events: Any) -> AsyncIterator[Any]:
    """An ``ExecStream`` as an async iterator; leaving it early (or cancelling the task)
    stops the command."""
    loop = asyncio.get_running_loop()
    done = object()
    try:
        while True:
            event = await loop.run_in_executor(None, next, events, done)
            if event is done:
                return
            yield event
    finally:
        events.close()
