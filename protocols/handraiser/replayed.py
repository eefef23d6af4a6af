"""The moderator's decision prompt at any chunk of a stored debate, rebuilt from its events.

What it does: ``listener_messages(events, utterance_id, unit_index)`` gives
the messages the ``listen`` form would have sent the moderator after chunk
``unit_index`` of utterance ``utterance_id``: the record of every earlier
statement and vote (a cut statement up to its cut), the side speaking and
what it had said so far, the round. It reads the debate's configuration from
its ``DebateStarted`` event and assigns the sides as the debate did, so the
prompt is the one the moderator saw (a test checks it against what the
backend received), whatever policy actually decided there: this is how the
tree sampler turns a node of a random-policy debate into a training example
in the prompted template.

What it does not do: run anything, or decide whether to interrupt.
"""

from __future__ import annotations

from collections.abc import Sequence

from debate_core.backends.base import Message
from debate_core.events.codec import Event
from debate_core.events.types import DebateStarted, PhaseStarted, UnitDisclosed
from protocols.handraiser.params import HandRaiserParams
from protocols.handraiser.prompting import render
from protocols.handraiser.sides import assign_sides, position
from protocols.handraiser.views import HandView, record_line, spoken_from_events

TITLES = {"pro": "Pro", "con": "Con", "moderator": "Moderator"}


def listener_messages(events: Sequence[Event], utterance_id: int, unit_index: int) -> tuple[Message, ...]:
    """The ``listen`` prompt after chunk ``unit_index`` of ``utterance_id`` (see the module docstring)."""
    started = next((e for e in events if isinstance(e, DebateStarted)), None)
    if started is None:
        raise ValueError("the events have no DebateStarted: not a whole stored debate")
    config = started.config
    params = HandRaiserParams.model_validate(config.params)
    prefix: list[Event] = []
    for event in events:
        prefix.append(event)
        if isinstance(event, UnitDisclosed) and (event.utterance_id, event.index) == (utterance_id, unit_index):
            break
    else:
        raise ValueError(f"utterance {utterance_id} has no disclosed chunk {unit_index}")
    roles = {agent.name: agent.role or "" for agent in config.agents}
    (moderator,) = [name for name, role in roles.items() if role == "moderator"]
    spoken = spoken_from_events(prefix)
    current = spoken[utterance_id]
    record = tuple(
        record_line(TITLES.get(roles.get(s.speaker, ""), s.speaker), s.said, cut=s.cut)
        for uid, s in spoken.items()
        if uid != utterance_id and s.disclosed
    )
    rounds = [e.round for e in prefix if isinstance(e, PhaseStarted) and e.phase == "round" and e.round]
    sides = assign_sides(config, params)
    spec = config.agent(moderator)
    view = HandView(
        agent=moderator,
        role="moderator",
        title="Moderator",
        question=config.question,
        persona=spec.persona,
        brief=spec.brief,
        pro_position=position(config.question, sides.pro),
        con_position=position(config.question, sides.con),
        transcript=record,
        speaker=TITLES.get(roles.get(current.speaker, ""), current.speaker),
        partial=current.said,
        concise=started.protocol.endswith("/concise"),
        round=rounds[-1] if rounds else 1,
        max_rounds=params.max_rounds,
    )
    return render("listen", view)
