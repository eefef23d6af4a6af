"""Where a long study reports its progress: a sink protocol, a silent one, and rich progress bars.

What it does: ``Progress`` is what a runner calls (``phase(name, total,
done)`` opens a phase, ``advance(name, note)`` moves it on); ``SilentProgress``
draws nothing; ``BarProgress`` draws each phase as a rich bar with elapsed
time, an ETA and a note, as a context manager (``with BarProgress(console) as
progress:``). Every study runner of the harness (a comparison, a protocol's
own study) reports through these.

What it does not do: run anything or decide what a phase is (the runners do).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import TaskID


class Progress(Protocol):
    """Where the runner reports progress (a terminal bar, a log, nothing)."""

    def phase(self, name: str, total: int, done: int = 0) -> None: ...

    def advance(self, name: str, note: str = "") -> None: ...


class SilentProgress:
    def phase(self, name: str, total: int, done: int = 0) -> None:
        pass

    def advance(self, name: str, note: str = "") -> None:
        pass


class BarProgress:
    """A runner's progress as rich bars with elapsed time and ETA."""

    def __init__(self, console: Console) -> None:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )
        from rich.progress import Progress as RichBar

        self.bar = RichBar(
            TextColumn("{task.description:<8}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            TextColumn("{task.fields[note]}"),
            console=console,
        )
        self.tasks: dict[str, TaskID] = {}

    def __enter__(self) -> BarProgress:
        self.bar.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.bar.stop()

    def phase(self, name: str, total: int, done: int = 0) -> None:
        self.tasks[name] = self.bar.add_task(name, total=total, completed=done, note="")

    def advance(self, name: str, note: str = "") -> None:
        self.bar.update(self.tasks[name], advance=1, note=note)
