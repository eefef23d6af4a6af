"""The open classroom rooms of a server, by debate id and by join code.

What it does: ``Rooms`` hands each new room a join code no other open room
holds (drawn again on a clash: ``make_code`` is injectable, so tests can
force clashes), finds a room by the code a person typed (``by_code``, read
leniently: any case, spaces and dashes) or by its debate's id
(``by_debate``), and forgets a room when it closes (``release``): its code
expires with it and may be drawn again. ``ROOMS`` is the server's registry
(``Room.create`` uses it unless given another). Thread-safe.

What it does not do: keep a closed room's records (the wiring stores them
with the transcript) or decide anything inside a room (``room``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from ui.classroom.roles import Conflict
from ui.classroom.tokens import new_join_code, normalize_code

if TYPE_CHECKING:
    from ui.classroom.room import Room

MAX_DRAWS = 64  # with 887 million codes a clash is rare; 64 in a row means the code source is broken
MAX_ROOMS = 10_000


class Rooms:
    """The open rooms; every method is thread-safe."""

    def __init__(self, make_code: Callable[[], str] = new_join_code) -> None:
        self._make_code = make_code
        self._lock = threading.Lock()
        self._by_code: dict[str, Room] = {}
        self._by_debate: dict[str, Room] = {}

    def add(self, debate_id: str, build: Callable[[str], Room]) -> Room:
        """The room ``build(code)`` makes, under a code no open room holds; ``Conflict`` if the debate has one."""
        with self._lock:
            if debate_id in self._by_debate:
                raise Conflict("This debate already has a room.")
            if len(self._by_debate) >= MAX_ROOMS:
                raise Conflict("This server holds as many classroom debates as it may.")
            for _ in range(MAX_DRAWS):
                code = normalize_code(self._make_code())
                if code is not None and code not in self._by_code:
                    break
            else:
                raise RuntimeError("no free join code could be drawn")
            room = build(code)
            self._by_code[code] = room
            self._by_debate[debate_id] = room
            return room

    def by_code(self, text: object) -> Room | None:
        """The open room whose join code is ``text`` as a person typed it (None: no such open room)."""
        code = normalize_code(text)
        if code is None:
            return None
        with self._lock:
            return self._by_code.get(code)

    def by_debate(self, debate_id: str) -> Room | None:
        with self._lock:
            return self._by_debate.get(debate_id)

    def release(self, room: Room) -> None:
        """Forget a closed room (again harmless): its join code no longer opens anything."""
        with self._lock:
            if self._by_code.get(room.join_code) is room:
                del self._by_code[room.join_code]
            if self._by_debate.get(room.debate_id) is room:
                del self._by_debate[room.debate_id]

    def codes(self) -> frozenset[str]:
        with self._lock:
            return frozenset(self._by_code)

    def __len__(self) -> int:
        with self._lock:
            return len(self._by_debate)


ROOMS = Rooms()
