"""Progress on stderr, only on a terminal and only for work that lasts: a rich bar (LazyProgress,
after a second) and a one-line status (StatusLine, after two seconds)."""

from __future__ import annotations

import sys
import time
from types import TracebackType
from typing import Any

BAR_DELAY_S = 1.0  # a bar shows once its work has run this long


class LazyProgress:
    """Call `update(done, total)`; a rich bar shows on stderr, when it is a terminal
    (`on_terminal`), once `BAR_DELAY_S` has passed."""

    def __init__(self, description: str, delay_s: float | None = None) -> None:
        self.description = description
        self.delay_s = BAR_DELAY_S if delay_s is None else delay_s
        self.start = time.monotonic()
        self._bar: Any = None
        self._task: Any = None
        self.enabled = on_terminal(sys.stderr)

    def update(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        if self._bar is None:
            if time.monotonic() - self.start < self.delay_s:
                return
            from rich.console import Console
            from rich.progress import Progress

            # a terminal by on_terminal's word (rich would ask the stream again)
            self._bar = Progress(console=Console(stderr=True, force_terminal=True),
                                 transient=True)
            self._bar.start()
            self._task = self._bar.add_task(self.description, total=total)
        self._bar.update(self._task, completed=done, total=total)

    def __enter__(self) -> LazyProgress:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._bar is not None:
            self._bar.stop()


DELAY_S = 2.0  # work shorter than this prints no progress at all


def on_terminal(stream: Any) -> bool:
    """True when `stream` is a terminal (tests replace this to simulate one)."""
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


class StatusLine:
    """One line on stderr, rewritten in place, for work that may outlast `DELAY_S` seconds.

    Nothing is written off a terminal (pipes, files, CI logs, tests' captured output) or
    before the delay; a line still waiting when the work blocks (a download) is drawn by a
    timer. On exit the line is erased: what stays on the screen is the command's own output.
    `update(text)` is cheap enough to call per file.
    """

    def __init__(self, label: str, text: str = "", delay_s: float | None = None,
                 stream: Any = None) -> None:
        self.label = label
        self.text = text
        self.stream = stream if stream is not None else sys.stderr
        self.delay_s = DELAY_S if delay_s is None else delay_s
        self.enabled = on_terminal(self.stream)
        self.start = time.monotonic()
        self.width = 0  # characters on the line now (0: nothing drawn)
        self.closed = False
        self._timer: Any = None
        self._lock: Any = None

    def __enter__(self) -> StatusLine:
        if self.enabled:
            import threading

            self._lock = threading.Lock()
            self._timer = threading.Timer(self.delay_s, self._due)
            self._timer.daemon = True
            self._timer.start()
        return self

    def _due(self) -> None:
        with self._lock:
            if not self.closed and self.text and not self.width:  # nothing drawn yet
                self._draw()

    def _draw(self) -> None:
        line = f"{self.label}: {self.text}"
        pad = " " * max(0, self.width - len(line))
        self.stream.write(f"\r{line}{pad}")
        self.stream.flush()
        self.width = len(line)

    def update(self, text: str) -> None:
        if not self.enabled:
            return
        due = time.monotonic() - self.start >= self.delay_s
        if self._lock is None:  # used without `with`: drawn from the caller's thread only
            self.text = text
            if due:
                self._draw()
            return
        with self._lock:
            self.text = text
            if due and not self.closed:
                self._draw()

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        if self._lock is not None:
            with self._lock:
                self._erase()
        else:
            self._erase()

    def _erase(self) -> None:
        self.closed = True
        if self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()
            self.width = 0

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
