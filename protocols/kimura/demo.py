"""The default scripted scenario: a deterministic debate with no model at all.

What it does: ``demo_backend(config)`` returns a ``ScriptedBackend`` whose
outputs follow a small script, so that ``python -m debate_core run --backend
scripted`` shows every mechanism of the interruptible protocol in a few
seconds: the first speaker opens from a wrong premise, another agent
**interrupts** after its second sentence and corrects it, the listeners change
their answers, a **silent turn** follows, and the debate then continues in a
rotation (with more interruptions and silences) until the token budget is spent.
After the opener concedes, each speaker follows up in a voice of its own (by
seat: intuition, numbers, science) around facts dealt to its seat alone, so
no sentence is ever said by two speakers (``follow_up_lines``).
When a person sits at the table and holds the floor for the first time, an
agent **cuts them off** after their first sentence to answer it (a person's
later turns are heard out): the classroom sees that an AI interrupts people
too.

The script reads only what a real model would see in its request (the agent,
the turn, the allowed actions and options in the JSON schema) plus what it
itself said earlier. It works with any number of agents (>= 2), any question
and every condition; with the built-in demo question it speaks about the
atmosphere, otherwise it argues about option labels in general terms.

What it does not do: pretend to be a model. Its plans are always valid JSON.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from debate_core.backends.base import GenerationRequest
from debate_core.backends.scripted import ScriptedBackend
from debate_core.config import DebateConfig, SeatKind
from debate_core.demo import DEMO_AGENTS, DEMO_QUESTION

_OPENING_WRONG = (
    "Oxygen must be the answer, since every breath we take depends on it.",
    "Plants release oxygen all day, so it should dominate the air.",
    "It is also the gas we hear about most in science class.",
    "So I am going with A.",
)
_CORRECTION = (
    "Sorry to cut in, but that mixes up how important a gas is with how abundant it is.",
    "Nitrogen makes up about 78 percent of dry air, while oxygen is only about 21 percent.",
    "Argon is under one percent, and carbon dioxide is a small fraction of that.",
    "So the answer is B, nitrogen.",
)
_CONCESSION = (
    "I was wrong earlier about oxygen.",
    "Being essential for breathing does not make a gas the most common one.",
    "Nitrogen is inert and has built up over billions of years.",
    "I now support B as well.",
)
# What each speaker says once the opener has conceded: a lead and a closing in the speaker's own voice (by seat:
# the opener trusts intuition, the middle seat checks numbers, the corrector is the scientist) around one fact.
# The facts are dealt out so that no two speakers ever say the same one, and no sentence is any other's.
_VOICES = (
    (
        (
            "Thinking about it in everyday terms helps me here.",
            "Here is the picture that made it click for me.",
            "Let me put it the way I would explain it to a friend.",
            "One more plain observation from me.",
        ),
        (
            "So my gut now agrees with the numbers: B.",
            "That is enough to keep me on B.",
            "Plain sense and the data both point to B.",
            "I am staying with nitrogen, B.",
        ),
    ),
    (
        (
            "I went back over the figures before saying anything.",
            "Let me be careful with the numbers here.",
            "I double-checked one detail against a reference table.",
            "Before we settle, one more figure worth checking.",
        ),
        (
            "The figures leave no room for another option, so B.",
            "Checked twice, and it still comes out as B.",
            "With those numbers I am comfortable answering B.",
            "That figure fits B and rules out the rest.",
        ),
    ),
    (
        (
            "From a chemistry point of view there is a clear reason.",
            "There is also a historical side to this.",
            "A measurement detail is worth keeping straight.",
            "Let me connect this to how the atmosphere formed.",
        ),
        (
            "The evidence is consistent: the answer is B.",
            "Everything we know about the air supports B.",
            "So the science points firmly to B.",
            "I remain confident that B is correct.",
        ),
    ),
)
_FACTS = (
    "The nitrogen molecule is held together by a triple bond, so it hardly reacts and stays in the air.",
    "Even the air we breathe out is still mostly nitrogen, because our bodies do not use it.",
    "Carbon dioxide is only about 0.04 percent of the atmosphere, even though it matters for climate.",
    "Oxygen only built up after photosynthesis took off, more than two billion years ago.",
    "Argon comes third, at a little under one percent of dry air.",
    "Volcanoes released nitrogen for billions of years, and little of it has been removed since.",
    "Liquid nitrogen is made by cooling ordinary air, because air is such a rich source of it.",
    "Water vapour varies from place to place, which is why the shares are quoted for dry air.",
    "Oxygen is second, at roughly a fifth of the air.",
    "Nitrogen makes up close to four fifths of every breath we take in.",
    "Lightning and soil bacteria fix only a tiny part of the nitrogen each year.",
    "Air pressure at sea level comes mostly from the weight of nitrogen above us.",
)


def follow_up_lines(seat: int, count: int, agents: int) -> tuple[str, ...]:
    """What the agent in ``seat`` says in its ``count``-th follow-up (0-based) on the demo question, in a debate
    of ``agents``: its voice's lead, a fact dealt to its seat alone, its voice's closing (deterministic)."""
    leads, closes = _VOICES[seat % len(_VOICES)]
    return leads[count % len(leads)], _deal(_FACTS, seat, agents, count), closes[count % len(closes)]


def _deal(pool: tuple[str, ...], seat: int, agents: int, count: int) -> str:
    """The ``count``-th line of ``pool`` dealt to ``seat`` of ``agents``: seat i gets lines i, i + n, i + 2n, ...
    of the pool's first multiple of n lines, so no two seats share one (with at most as many seats as lines)."""
    dealt = len(pool) - len(pool) % agents if agents <= len(pool) else len(pool)
    return pool[(seat + agents * count) % dealt]


_GENERIC_OPENINGS = (
    "I want to explain why I support option {label}.",
    "Let me lay out my case for option {label}.",
    "Here is why option {label} holds up for me.",
    "I have a reason to back option {label}.",
    "Option {label} still looks strongest to me.",
    "Allow me to defend option {label}.",
)
_GENERIC_MIDDLES = (
    "Looking at the question again, option {label} fits every condition it states.",
    "Reading the question word by word, option {label} matches what it asks.",
    "Option {label} is the only one that accounts for the whole question.",
    "I checked option {label} against each part of the question, and it holds.",
    "Option {label} follows most directly from what the question gives us.",
    "Nothing in the question contradicts option {label}.",
)
_GENERIC_ASIDES = (
    "The other options each fail on at least one detail.",
    "Each alternative leaves part of the question unexplained.",
    "The competing options rest on assumptions the question does not make.",
    "I have not heard an argument that rules it out.",
    "The objections so far do not touch its main point.",
    "The remaining options contradict one of the question's conditions.",
)


def _generic_lines(agent: str, seat: int, agents: int, count: int, label: str, round_: int) -> tuple[str, ...]:
    """The ``count``-th utterance of the agent in ``seat`` about any question's option ``label``, from wordings
    dealt to its seat alone (``_deal``)."""
    return (
        _deal(_GENERIC_OPENINGS, seat, agents, count).format(label=label),
        _deal(_GENERIC_MIDDLES, seat, agents, count).format(label=label),
        _deal(_GENERIC_ASIDES, seat, agents, count),
        f"So my answer remains {label} (round {round_}, {agent}).",
    )


# A line of the debate's history in a prompt: "Turn 3 Jenny: ..." or "Turn 3 Jenny (interrupting Alex): ...",
# at the start of a line or after "Event of this turn: " (the cached layout).
_HISTORY_LINE = re.compile(r"(?:^|: )Turn \d+ (?P<speaker>[^\s:(]+)(?: \(interrupting [^)]*\))?: ", re.MULTILINE)


def _last_speaker(request: GenerationRequest) -> str | None:
    """Who spoke last, as the request's prompt shows it (what a model would read)."""
    text = "\n".join(message.content for message in request.messages)
    found = _HISTORY_LINE.findall(text)
    return found[-1] if found else None


@dataclass
class DemoScript:
    """The scenario's memory: who it made speak, when, and with how many units."""

    config: DebateConfig
    speaker: str | None = None
    spoke_at: int = 0
    units: int = 0
    utterances: int = 0
    conceded: bool = False
    free_rounds: dict[int, int] = field(default_factory=dict)
    people_cut: set[str] = field(default_factory=set)
    follow_ups: dict[str, int] = field(default_factory=dict)  # each agent's utterances from its dealt lines

    @property
    def names(self) -> tuple[str, ...]:
        return self.config.agent_names

    @property
    def labels(self) -> tuple[str, ...]:
        return self.config.question.labels

    @property
    def demo_question(self) -> bool:
        return self.config.question == DEMO_QUESTION

    def correct(self) -> str:
        if self.labels:
            return self.config.question.answer or self.labels[0]
        return self.config.question.answer or "unknown"

    def wrong(self) -> str:
        if not self.labels:
            return "not sure"
        return next(label for label in self.labels if label != self.correct())

    @property
    def people(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.config.agents if a.seat is SeatKind.HUMAN)

    def answerer(self, person: str) -> str:
        """The agent who answers a person: the first model seat after them."""
        models = [name for name in self.names if name not in self.people]
        after = [name for name in self.names[self.names.index(person) + 1 :] if name in models]
        return (after or models)[0]

    def opener(self) -> str:
        return self.names[0]

    def corrector(self) -> str:
        return self.names[-1]

    # -- answers ---------------------------------------------------------------
    def answer(self, agent: str, turn: int) -> str:
        index = self.names.index(agent)
        if agent == self.corrector():
            return self.correct()
        if index == 0:
            return self.wrong() if turn < 6 else self.correct()
        return self.wrong() if turn < 4 else self.correct()

    def reply(self, request: GenerationRequest) -> str:
        if request.kind == "initial_answer":
            answer = self.answer(request.agent, 0)
            return json.dumps({"reason": f"My first impression favours {answer}.", "answer": answer})
        if request.kind == "plan":
            return json.dumps(self.plan(request))
        return self.utterance(request)

    # -- plans -----------------------------------------------------------------
    def plan(self, request: GenerationRequest) -> dict[str, object]:
        schema = request.json_schema or {}
        allowed = schema.get("properties", {}).get("action", {}).get("enum", ["listen", "speak"])
        agent, turn = request.agent, request.turn
        action, urgency, purpose = self.decide(agent, turn, "interrupt" in allowed)
        person = _last_speaker(request) if "interrupt" in allowed else None
        if person in self.people and person not in self.people_cut and agent == self.answerer(person):
            action, urgency, purpose = "interrupt", 8, f"answer {person}'s point at once"
        if action not in allowed:
            action, urgency, purpose = "listen", 0, "listen"
        thought = f"At turn {turn} I {'want the floor' if action != 'listen' else 'will listen'}."
        return {
            "thought": thought,
            "action": action,
            "urgency": urgency,
            "purpose": purpose,
            "answer": self.answer(agent, turn),
        }

    def decide(self, agent: str, turn: int, floor_held: bool) -> tuple[str, int, str]:
        index = self.names.index(agent)
        if floor_held:
            disclosed = turn - self.spoke_at
            if agent == self.corrector() and self.speaker == self.opener() and self.utterances == 1:
                if disclosed >= 2:
                    return "interrupt", 8, "correct a factual error before it spreads"
                return "listen", 3, "hear the argument out first"
            nxt = self.names[(self.names.index(self.speaker or agent) + 1) % len(self.names)]
            if self.utterances % 3 == 0 and disclosed >= 2 and agent == nxt:
                return "interrupt", 7, "respond before the point is repeated"
            return "listen", 1, "listen to the end"
        # the floor is free
        if turn == 0:
            if index == 0:
                return "speak", 7, "open the debate"
            if agent == self.corrector():
                return "speak", 5, "state my answer"
            return "listen", 1, "hear the first argument"
        round_ = self.free_rounds.setdefault(turn, len(self.free_rounds))
        if round_ % 4 == 0:
            return "listen", 2, "let the point sink in"
        chosen = self.names[round_ % len(self.names)]
        return ("speak", 6, "add a point") if agent == chosen else ("listen", 2, "listen")

    # -- utterances -----------------------------------------------------------------
    def utterance(self, request: GenerationRequest) -> str:
        agent, turn = request.agent, request.turn
        self.utterances += 1
        person = _last_speaker(request)
        if person in self.people and person not in self.people_cut:
            self.people_cut.add(person)
            self.speaker, self.spoke_at, self.units = agent, turn, 2
            return f"Let me answer {person} right away. That point deserves a reply before we go on."
        if self.utterances == 1 and agent == self.opener():
            lines = _OPENING_WRONG if self.demo_question else self.generic(agent, self.wrong(), 1)
        elif self.utterances == 2 and agent == self.corrector():
            lines = _CORRECTION if self.demo_question else self.generic(agent, self.correct(), 2)
        elif self.demo_question and agent == self.opener() and not self.conceded:
            lines, self.conceded = _CONCESSION, True
        elif self.demo_question:
            lines = self.follow_up(agent)
        else:
            lines = self.generic(agent, self.answer(agent, turn), self.utterances)
        self.speaker, self.spoke_at, self.units = agent, turn, len(lines)
        return " ".join(lines)

    def _count(self, agent: str) -> int:
        count = self.follow_ups.get(agent, 0)
        self.follow_ups[agent] = count + 1
        return count

    def follow_up(self, agent: str) -> tuple[str, ...]:
        """The agent's next follow-up on the demo question: its own lines, never another speaker's."""
        return follow_up_lines(self.names.index(agent), self._count(agent), len(self.names))

    def generic(self, agent: str, label: str, round_: int) -> tuple[str, ...]:
        """The agent's next utterance on any other question: its own wordings, never another speaker's."""
        return _generic_lines(agent, self.names.index(agent), len(self.names), self._count(agent), label, round_)


def demo_backend(config: DebateConfig) -> ScriptedBackend:
    """A scripted backend running the demo scenario for ``config``."""
    script = DemoScript(config)
    return ScriptedBackend(script.reply, model_id="scripted-demo")


def demo_config(**overrides: object) -> DebateConfig:
    """The demo debate: the atmosphere question and three agents with personas."""
    values: dict[str, object] = {"question": DEMO_QUESTION, "agents": DEMO_AGENTS}
    values.update(overrides)
    return DebateConfig.model_validate(values)
