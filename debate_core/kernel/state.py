"""What end conditions and listener policies may read of a running debate: a narrow view of the table.

What it does: ``TableState`` is a ``typing.Protocol`` naming the few things
``endings`` (the turn, the public tokens, the silent streak, whether a stop
was asked, the configuration's limits) and ``policies`` (the seed, the fork
salt, and ``ask`` for the listeners' seats) read. ``Table`` provides all of
them, so a table is passed wherever a ``TableState`` is asked for; a test may
pass anything else that has them.

What it does not do: hold state or make moves (``Table`` does). It imports
nothing from ``table``, ``endings``, ``listening`` or ``policies``, so those
modules depend on this one and not on each other: the kernel's imports run
one way (``tests/test_architecture.py`` checks that ``debate_core`` has no
import circle).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, TypeVar

from debate_core.config import DebateConfig
from debate_core.kernel.forms import Form, FormResult

T = TypeVar("T")


class TableState(Protocol):
    """The table as end conditions and policies see it (``Table`` implements it)."""

    @property
    def config(self) -> DebateConfig: ...

    @property
    def turn(self) -> int: ...

    @property
    def public_tokens(self) -> int: ...

    @property
    def silent_streak(self) -> int: ...

    @property
    def stop_requested(self) -> bool:
        """``stop()`` was called."""
        ...

    @property
    def salt(self) -> int:
        """The fork salt once every forced decision has been taken (0 before, and without forcing)."""
        ...

    def ask(
        self, form: Form[Any, T], who: Sequence[str], view: Callable[[str], Any], *, nonce: int = 0
    ) -> Mapping[str, FormResult[T]]:
        """Ask ``who`` one request kind (one backend batch for the model seats); each seat's result."""
        ...
