"""A progress bar that appears only when work outlasts a second, and only on a terminal."""

from __future__ import annotations

import sys
import time
from types import TracebackType
from typing import Any


class LazyProgress:
    """Call `update(done, total)`; a rich bar shows on stderr once a second has passed."""

    def __init__(self, description: str, delay_s: float = 1.0) -> None:
        self.description = description
        self.delay_s = delay_s
        self.start = time.monotonic()
        self._bar: Any = None
        self._task: Any = None
        self.enabled = sys.stderr.isatty()

    def update(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        if self._bar is None:
            if time.monotonic() - self.start < self.delay_s:
                return
            from rich.console import Console
            from rich.progress import Progress

            self._bar = Progress(console=Console(stderr=True), transient=True)
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
