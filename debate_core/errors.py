"""Every exception the debate engine raises on purpose, in one place.

The hierarchy separates three kinds of failure:

* ``ConfigError``: the caller asked for something impossible (fewer than two
  agents, a seat with no input channel, ...). Raised before anything runs.
* ``CapabilityError`` (a ``ConfigError``): the protocol needs something the
  backend does not provide (token statistics from an API server, say).
* ``BackendError``: the model backend could not produce completions (out of
  memory, a crashed server; ``BackendUnavailable`` when it cannot be reached at
  all). The engine reports it on a ``DebateEnded`` event and then re-raises it.
* ``HumanInputError``: a human submitted something we refuse (empty, too long,
  an action that is not allowed now). Raised to the caller that submitted it,
  never inside the engine, so the debate loses nothing.
* ``ImpossibleEvent``: a recorded stream (an imported transcript) holds an
  event no debate can have emitted; it names the first such event.

A *model's* mistake (bad JSON, an urgency of 12) is not an exception at all: it
is recorded on the event and replaced by a documented fallback. Programming
errors (a bug in our code) are left as the ordinary Python exceptions they are.
"""

from __future__ import annotations


class DebateError(Exception):
    """Base class of every error this package raises deliberately."""


class ConfigError(DebateError, ValueError):
    """A debate cannot be set up as described."""


class CapabilityError(ConfigError):
    """A protocol or request needs something the backend does not provide."""


class BackendError(DebateError):
    """The model backend failed to produce completions for a batch."""


class BackendUnavailable(BackendError):
    """The backend cannot be reached at all (a dead server, a model that will not load)."""


class HumanInputError(DebateError, ValueError):
    """Input typed by a human was refused; the message says why."""


class StaleRequestError(HumanInputError):
    """A human answered a request the engine is no longer waiting for."""


class ImpossibleEvent(DebateError, ValueError):
    """A recorded event stream holds an event that cannot have happened (``kernel.consistency``).

    ``seq`` and ``event_type`` name the first such event, ``why`` says what is impossible about it.
    """

    def __init__(self, seq: int, event_type: str, why: str) -> None:
        super().__init__(f"event {seq} ({event_type}) cannot have happened: {why}")
        self.seq = seq
        self.event_type = event_type
        self.why = why
