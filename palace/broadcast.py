"""Live updates to every open page, from whichever thread changed something.

The camera loop runs in its own thread and the server in asyncio; a page must hear of
a new frame or a new report at once, but a slow tablet must never hold the camera up
nor pile up stale frames. So a publisher only bumps a topic's version and wakes the
subscribers; each subscriber then sends the newest state once, however many changes
happened meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading

TOPICS = ("state", "frame", "second_frame")


class Subscriber:
    """One connected page: an asyncio event set from any thread."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.event = asyncio.Event()
        self.seen = dict.fromkeys(TOPICS, -1)

    def wake(self) -> None:
        with contextlib.suppress(RuntimeError):  # its loop has closed: it is leaving
            self.loop.call_soon_threadsafe(self.event.set)


class Broadcast:
    """Topic versions and the subscribers to wake when one moves."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subscribers: set[Subscriber] = set()
        self.versions = dict.fromkeys(TOPICS, 0)

    def publish(self, topic: str) -> None:
        with self._lock:
            self.versions[topic] += 1
            subscribers = list(self._subscribers)
        for sub in subscribers:
            sub.wake()

    def subscribe(self) -> Subscriber:
        """Must be called from the subscriber's own event loop."""
        sub = Subscriber(asyncio.get_running_loop())
        with self._lock:
            self._subscribers.add(sub)
        return sub

    def unsubscribe(self, sub: Subscriber) -> None:
        with self._lock:
            self._subscribers.discard(sub)

    @property
    def subscribers(self) -> int:
        with self._lock:
            return len(self._subscribers)

    def changed(self, sub: Subscriber) -> list[str]:
        """Topics that moved since ``sub`` last looked; marks them seen."""
        with self._lock:
            moved = [t for t in TOPICS if self.versions[t] != sub.seen[t]]
            for t in moved:
                sub.seen[t] = self.versions[t]
        return moved
