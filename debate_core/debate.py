"""A debate: a protocol running over the kernel's table, as a generator of events.

What it does: ``Debate(config, backend).events()`` resolves the configured
protocol (``protocols.registry``: its variant and parameters, defaults filled
in), assigns roles, checks that the backends provide what the protocol needs
(a ``CapabilityError`` before anything runs, e.g. "protocol sid needs
per-token statistics ... backend X lacks it"), builds the seats and the
``Table``, yields ``DebateStarted``, and then every event of
``protocol.run(table)``. ``stop()`` from any thread ends it promptly (see
``Table.stop``). A ``BackendError`` ends it too: a ``DebateEnded`` event with
reason ``error`` is yielded first, then the error is re-raised.

``segmenter`` is the chunker the protocol's sentences come from; without
one the configuration's ``segmenter`` names it (``kernel.sentences``:
``sentence_chunker``; one not installed is a ``ConfigError``).

``backend`` is one backend for every seat, or a ``BackendRouter`` that gives
agents or roles their own models. ``forced`` fixes listener decisions at
``(listener, utterance_id, unit_index)`` points: with the same configuration
the debate replays identically up to the first of them and branches there
(tree-sampled training data for a learned interruption policy).

What it does not do: print, persist, or render. Consumers do that with events.
"""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Callable, Iterator, Mapping

from debate_core.backends.base import Backend
from debate_core.backends.router import BackendRouter
from debate_core.config import DebateConfig, SeatKind
from debate_core.errors import BackendError, CapabilityError, ConfigError
from debate_core.events.codec import Event
from debate_core.events.records import EndReason
from debate_core.events.types import DEBATE_ID_PATTERN, DebateEnded, DebateStarted
from debate_core.kernel.chunkers import Chunker
from debate_core.kernel.seats import Seat, build_seats
from debate_core.kernel.sentences import sentence_chunker
from debate_core.kernel.table import DebateStopped, Table
from debate_core.log import logger
from debate_core.protocols.base import Protocol
from debate_core.protocols.registry import resolve
from debate_core.version import __version__


class Debate:
    """One debate. Iterate ``events()`` (once) to run it; ``stop()`` from any thread."""

    def __init__(
        self,
        config: DebateConfig,
        backend: Backend | BackendRouter,
        *,
        seats: Mapping[str, Seat] | None = None,
        segmenter: Chunker | None = None,
        debate_id: str | None = None,
        clock: Callable[[], float] = time.time,
        forced: Mapping[tuple[str, int, int], bool] | None = None,
        fork_salt: int = 0,
    ) -> None:
        resolved, self.protocol = resolve(config)
        roles = self.protocol.assign_roles(resolved)
        if roles:
            agents = tuple(a.model_copy(update={"role": roles[a.name]}) for a in resolved.agents)
            resolved = resolved.model_copy(update={"agents": agents})
        self.config = resolved
        self.router = backend if isinstance(backend, BackendRouter) else BackendRouter(backend)
        if debate_id is not None and not re.match(DEBATE_ID_PATTERN, debate_id):
            raise ConfigError(f"debate id {debate_id[:80]!r} must be 1-64 letters, digits, '_', '.' or '-'")
        self.debate_id = debate_id or uuid.uuid4().hex
        self._check_requirements(self.protocol, roles)
        if segmenter is None:
            try:
                segmenter = sentence_chunker(self.config.segmenter)
            except ValueError as error:
                raise ConfigError(str(error)) from None
        self.seats = build_seats(self.config, seats or {}, self.debate_id)
        self.table = Table(
            self.config,
            self.router,
            self.seats,
            debate_id=self.debate_id,
            sentences=segmenter,
            roles=roles,
            clock=clock,
            forced=forced,
            fork_salt=fork_salt,
        )
        self._started = False

    @property
    def backend(self) -> Backend:
        """The default backend (the one that counts public tokens)."""
        return self.router.default

    def _check_requirements(self, protocol: Protocol, roles: Mapping[str, str]) -> None:
        for seated, model in protocol.seat_models().items():
            for agent in self.config.agents:
                if roles.get(agent.name) != seated or agent.seat is SeatKind.HUMAN:
                    continue
                served_by = self.router.backend_for(agent.name, seated).model_id
                if served_by != model:
                    raise ConfigError(
                        f"{protocol.label} puts the model {model} in the {seated}'s seat, but {agent.name} is served "
                        f"by {served_by}: give the {seated} its own backend (--model-for {seated}={model})"
                    )
        for requirement in protocol.requirements():
            for agent in self.config.agents:
                role = roles.get(agent.name)
                if agent.seat is SeatKind.HUMAN or (requirement.roles and role not in requirement.roles):
                    continue
                backend = self.router.backend_for(agent.name, role)
                if requirement.capability not in backend.capabilities:
                    raise CapabilityError(
                        f"protocol {protocol.name} needs {requirement.capability.description} "
                        f"({requirement.why}); backend {backend.model_id} does not provide it"
                    )
                if requirement.vocabulary and not backend.vocab_size:
                    raise CapabilityError(
                        f"protocol {protocol.name} needs the model's vocabulary size ({requirement.why}); backend "
                        f"{backend.model_id} does not know it (a server backend takes --backend-option vocab_size=N; "
                        "a protocol parameter may offer another rule, e.g. SID's gate=fixed)"
                    )

    def stop(self) -> None:
        """End the debate promptly (thread-safe); it ends with reason ``stopped``."""
        self.table.stop()

    def __iter__(self) -> Iterator[Event]:
        return self.events()

    def run(self) -> list[Event]:
        """Run to the end and return every event (convenience for scripts and tests)."""
        return list(self.events())

    def events(self) -> Iterator[Event]:
        if self._started:
            raise RuntimeError("a Debate runs once; create a new Debate to run again")
        self._started = True
        table, protocol = self.table, self.protocol
        yield table.emit(
            DebateStarted,
            debate_id=self.debate_id,
            config=self.config,
            protocol=protocol.label,
            model_id=self.router.model_id,
            segmenter=protocol.unit_name(table),
            engine_version=__version__,
        )
        ended = False
        try:
            for event in protocol.run(table):
                ended = isinstance(event, DebateEnded)
                yield event
                if ended:
                    return
            raise RuntimeError(f"protocol {protocol.name} returned without finishing the debate")
        except DebateStopped:
            yield table.finish(EndReason.STOPPED, protocol.conclude(table, EndReason.STOPPED))
        except BackendError as error:
            logger.error("debate %s failed: %s", self.debate_id, error)
            if not ended:
                yield table.finish(EndReason.ERROR, protocol.conclude(table, EndReason.ERROR), error=str(error))
            raise
        finally:
            self.router.release(self.debate_id)
