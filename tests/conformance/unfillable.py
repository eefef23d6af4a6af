"""A defect for the conformance suite to find: the example round-robin protocol with an answer form no person can fill.

``Unfillable`` (``round-robin-unfillable``) is the outside example plugin's ``RoundRobin``
(``examples/round_robin``) whose answer form refuses every value a person enters, so nobody can take
a seat. The module is an outside plugin (``register_protocols``); the conformance test loads it, with
the example, in a pytest run of its own through ``DEBATE_PLUGINS``, so nothing in this process
registers them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from round_robin.protocol import ANSWER, RoundRobin, Seen

from debate_core.kernel import FieldSpec, Form, FormInvalid
from debate_core.plugins import hookimpl
from debate_core.protocols import Protocol


def _refuse(value: Any) -> Any:
    raise FormInvalid("this form takes nothing")


UNFILLABLE: Form[Seen, str] = dataclasses.replace(
    ANSWER, fields=lambda seen: (FieldSpec("answer", "text", "Your answer", check=_refuse),)
)


class Unfillable(RoundRobin):
    """``RoundRobin`` whose answer form no person can fill (a defect for the suite to find)."""

    name = "round-robin-unfillable"
    variants = ("standard",)

    def forms(self) -> Mapping[str, Form[Any, Any]]:
        return {**super().forms(), "answer": UNFILLABLE}


@hookimpl
def register_protocols(register: Callable[[type[Protocol]], object]) -> None:
    register(Unfillable)
