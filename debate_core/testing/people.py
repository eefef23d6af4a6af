"""An automatic person for conformance checks: fills every request a seat posts, from its fields alone.

What it does: ``AutoPerson(channel)`` answers, in a thread of its own, each
request the debate posts on a ``HumanChannel`` the way a person using the web
app's generic form could: it knows nothing of the protocol, only the request's
``FieldSpec``\\ s. ``candidate_values`` lists, per field, values a person might
enter (each choice, yes and no, the bounds and default of an integer, a
sentence, a bare option label, an item pair such as ``1-1``, blank where the
field is optional), rotated by the request's number so that successive
requests take different paths (speak, then listen; yes, then no). The person
submits combinations until the channel accepts one; a request no combination
satisfies is recorded in ``refused`` with the channel's last message, and the
channel is closed so the debate ends instead of waiting forever.

``fill_form(form, view)`` makes the same search without a channel: the
values a person could enter in that form, in that situation, checked as the
channel checks them (``forms.validate_values``, then the form's own rule).

What it does not do: read the request's view, act on the live controls
(``set_stance``), or judge whether what it said was sensible.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from debate_core.errors import HumanInputError, StaleRequestError
from debate_core.kernel.forms import FieldSpec, Form, FormInvalid, validate_values
from debate_core.kernel.human import DEFAULT_MAX_HUMAN_CHARS, HumanChannel, HumanRequest

SENTENCE = "Beta is the second letter of the Greek alphabet, so the answer is B."
MAX_TRIES = 512  # combinations tried per request before it counts as unfillable


def _rotated(values: list[Any], by: int) -> list[Any]:
    unique = list(dict.fromkeys(values))
    if not unique:
        return unique
    shift = by % len(unique)
    return unique[shift:] + unique[:shift]


def candidate_values(spec: FieldSpec, number: int = 0) -> list[Any]:
    """Values a person might enter in ``spec``, the preferred first (request ``number`` rotates the choices)."""
    if spec.kind == "choice":
        return _rotated(list(spec.choices), number) or [spec.default]
    if spec.kind == "boolean":
        return _rotated([False, True], number)
    if spec.kind == "integer":
        low = spec.minimum if spec.minimum is not None else 0
        high = spec.maximum if spec.maximum is not None else low + 9
        picks = [value for value in (spec.default, high, low, (low + high) // 2) if isinstance(value, int)]
        return _rotated([value for value in picks if low <= value <= high], number) or [low]
    texts: list[Any] = [SENTENCE, "B", "1-1", "yes"]
    if spec.default is not None:
        texts.insert(0, spec.default)
    if not spec.required:
        texts.insert(0, "")
    return list(dict.fromkeys(texts))


def _combinations(fields: tuple[FieldSpec, ...], number: int) -> Iterator[dict[str, Any]]:
    names = [spec.name for spec in fields]
    options = [candidate_values(spec, number) for spec in fields]
    for combination in itertools.islice(itertools.product(*options), MAX_TRIES):
        yield dict(zip(names, combination, strict=True))


def fill_form(
    form: Form[Any, Any], view: Any, number: int = 0, max_chars: int = DEFAULT_MAX_HUMAN_CHARS
) -> tuple[Any, str | None]:
    """``(value, None)``: what a person's first accepted values build; ``(None, why)`` when none is accepted."""
    last = "no combination of values was tried"
    for values in _combinations(tuple(form.fields(view)), number):
        try:
            return form.from_human(validate_values(tuple(form.fields(view)), values, max_chars), view), None
        except HumanInputError as error:
            last = str(error)
        except FormInvalid as error:
            last = str(error)
    return None, last


@dataclass
class AutoPerson:
    """A person in one seat who fills every posted request from its fields (``start``, then ``stop``)."""

    channel: HumanChannel
    filled: list[str] = field(default_factory=list)  # the request kinds answered, in order
    refused: list[tuple[str, str]] = field(default_factory=list)  # (kind, why) of requests nothing satisfied
    _thread: threading.Thread | None = field(default=None, repr=False)

    def start(self) -> AutoPerson:
        self._thread = threading.Thread(target=self._answer_all, name="auto-person", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout_s: float = 60.0) -> None:
        """Close the channel (nothing more will be asked) and wait for the thread."""
        self.channel.close()
        if self._thread is not None:
            self._thread.join(timeout_s)

    def _answer_all(self) -> None:
        for number in itertools.count():
            request = self.channel.pending(timeout_s=None)
            if request is None:
                return
            why = self._answer(request, number)
            if why is not None:
                self.refused.append((request.kind, why))
                self.channel.close()
                return

    def _answer(self, request: HumanRequest, number: int) -> str | None:
        """Submit the first combination the channel accepts; None when done, else the last refusal."""
        last = "no combination of values was tried"
        for values in _combinations(request.fields, number):
            try:
                self.channel.submit(request.request_id, values)
            except StaleRequestError:
                return None  # the debate stopped waiting (a deadline): nothing to fill
            except HumanInputError as error:
                last = str(error)
                continue
            self.filled.append(request.kind)
            return None
        return last
