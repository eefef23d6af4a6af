"""Parliament's request kinds: speeches with an answer line, replies, questions, checks, the final answer.

What it does: builds the ``Form`` kinds the four variants ask (``catalogue``
puts them together), each rendering its template from ``prompts/``:

* speeches (``opening``, ``closing``, ``critique``, ``prover_rebuttal``,
  ``student_answer``, ``student_revision``, ``cot``): asked, as the paper's
  prompts ask, for plain text ending with its answer line (``Proposed
  Answer: B``; ``Verdict: AGREE`` too for a critique); with
  ``reply_format=json`` for a JSON object ``{"speech", "answer"[,
  "verdict"]}`` whose schema constrains the answer to the option labels (and
  ``SAME`` for the critic) where the backend supports constrained decoding.
  Either reply is read in either format (a JSON object, or plain text with
  its answer line, as the paper's code reads it). The public text is the
  argument followed by the answer (and verdict) lines.
  Fallbacks: no answer line, or one naming no option, keeps the speech and
  leaves the role's answer where it was (noted on the reply); no speech at
  all gives the floor back with nothing said;
* ``poi_reply`` and ``socratic_question``: a short public text (with
  ``reply_format=json``, ``{"reply"}`` or ``{"question"}``); fallback: nothing
  said;
* ``poi_check`` and ``question_check``: the critic's private decision, as
  the paper's code asks it, ``INTERRUPT: <one sentence>`` or ``NO`` (with
  ``reply_format=json``, ``{"interrupt": true|false, "point": "<one
  sentence>"}``, constrained where the backend can); both read either way
  (``kernel.policies.decision_form``); fallback: no interruption;
* ``streamed_opening`` and ``streamed_answer``: a speech generated as it is
  disclosed (the British opening, the Socratic answer in its streaming
  form), asked in plain text with its answer line at the end, as the paper's
  prompts ask (a JSON object cannot be disclosed as it is generated); its
  value is the text said; ``read_speech`` reads the answer line of the whole
  text. Fallback: nothing said;
* ``resume`` and ``revise_rest``: the prover continues its own partial reply
  (``assistant_prefix``: the speech disclosed so far) after a point or a
  question, also as it is disclosed; on a backend that cannot continue a
  partial reply (the plain OpenAI API), the same request with the speech so
  far in its prompt instead (``said_in_prompt``: ``prompts/resume_prompted.txt``,
  ``prompts/revise_rest_prompted.txt``, "You have said so far: ...
  continue from exactly where you stopped"), its answer the rest; fallback
  (and a person's blank answer): the rest it had prepared, unchanged;
* ``final``: ``{"final_answer"}``; fallback: the prover's last answer.

A person in either role fills the same forms: the speech and the answer (and
verdict; a streamed speech too, said chunk by chunk as written), the reply
or question, the rest of the speech (blank: as prepared), the final answer; as the critic, a live seat raises a point of
information from the page's button at the next chunk (``from_stance``).

What it does not do: decide who is asked when (the variant loops), truncate
a reply to its sentence limit (the loop does, with the table's segmenter), or
build the yes/no checks (``catalogue``, with ``kernel.policies.decision_form``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from debate_core.kernel.forms import FieldSpec, Form, FormInvalid
from debate_core.kernel.replies import load_object
from protocols.parliament.answers import (
    MAX_FREE_ANSWER,
    VERDICTS,
    answer_choices,
    find_line,
    normalize_answer,
    normalize_verdict,
    strip_lines,
)
from protocols.parliament.prompting import render
from protocols.parliament.views import RoleView

MAX_SPEECH_CHARS = 4_000
MAX_SHORT_CHARS = 1_000
MIN_SPEECH_CHARS = 120
CHARS_PER_TOKEN = 3  # a conservative bound (English runs near 4): a constrained text closes before the cap


def point_chars(cap: int) -> int:
    """A constrained point's longest text, so that its JSON closes within ``cap`` tokens."""
    return max(16, CHARS_PER_TOKEN * cap - 40)


def _text_limit(view: RoleView, cap: int, most: int) -> int:
    """The longest text a schema allows, so that the JSON closes within the token cap."""
    return max(16, min(most, CHARS_PER_TOKEN * min(view.token_cap, cap) - 60))


@dataclass(frozen=True, slots=True)
class Speech:
    """What a role said: the public text (with its answer lines), and what the protocol reads from it."""

    text: str
    answer: str | None = None
    verdict: str | None = None
    problem: str | None = None


@dataclass(frozen=True, slots=True)
class SpeechKind:
    """How one speech request is worded and read: its template, its answer line, and extras."""

    kind: str
    description: str
    template: str
    line: str = "Proposed Answer"
    same: bool = False
    verdict: bool = False
    extra: Callable[[RoleView], Mapping[str, str]] = field(default=lambda view: {})


def _answer_schema(view: RoleView, same: bool) -> dict[str, Any]:
    choices = answer_choices(view.question, allow_same=same)
    if choices:
        return {"type": "string", "enum": list(choices)}
    return {"type": "string", "minLength": 1, "maxLength": MAX_FREE_ANSWER}


def _compose(argument: str, spec: SpeechKind, answer: str | None, verdict: str | None, said: str | None) -> str:
    lines = [argument.strip()]
    if spec.verdict and verdict:
        lines.append(f"Verdict: {verdict}")
    shown = answer or (said.strip() if said else "")
    if shown:
        lines.append(f"{spec.line}: {shown}")
    return "\n".join(line for line in lines if line)


def _problem(spec: SpeechKind, view: RoleView, answer: str | None, said: str | None) -> str | None:
    if answer is not None:
        return None
    choices = answer_choices(view.question, allow_same=spec.same)
    wanted = f" naming one of {', '.join(choices)}" if choices else ""
    if said is None:
        return f"no {spec.line} line{wanted}: the answer stays as it was"
    return f"the {spec.line} {said[:60]!r} names no answer{wanted}: the answer stays as it was"


def _speech_parser(spec: SpeechKind) -> Callable[[str, RoleView], tuple[Speech, str | None]]:
    def parse(raw: str, view: RoleView) -> tuple[Speech, str | None]:
        if raw.lstrip().startswith("{"):
            data, note = load_object(raw)
            argument = data.get("speech")
            if not isinstance(argument, str) or not any(ch.isalnum() for ch in argument):
                raise FormInvalid("the JSON object has no speech")
            said = data.get("answer") if isinstance(data.get("answer"), str) else None
            answer = normalize_answer(said, view.question, allow_same=spec.same)
            verdict = normalize_verdict(data.get("verdict")) if isinstance(data.get("verdict"), str) else None
            text = _compose(argument, spec, answer, verdict, said)
        else:
            note = None
            if not any(ch.isalnum() for ch in strip_lines(raw)):
                raise FormInvalid("an empty speech")
            said = find_line(raw, spec.line)
            answer = normalize_answer(said, view.question, allow_same=spec.same)
            verdict = normalize_verdict(find_line(raw, "verdict")) if spec.verdict else None
            text = raw.strip()
        problem = _problem(spec, view, answer, said)
        if spec.verdict and verdict is None:
            problem = "; ".join(p for p in (problem, "no Verdict: AGREE|DISAGREE line") if p)
        return Speech(text, answer, verdict, problem), "; ".join(p for p in (note, problem) if p) or None

    return parse


def _answer_field(view: RoleView, same: bool) -> FieldSpec:
    choices = answer_choices(view.question, allow_same=same)
    if choices:
        return FieldSpec("answer", "choice", "Your answer", choices=choices, noun="answer")
    return FieldSpec("answer", "text", "Your answer (a few words)", max_chars=MAX_FREE_ANSWER, noun="answer")


def template_for(name: str, json: bool) -> str:
    """The template a request kind is worded with: the paper's plain-text form, or ours asking for JSON."""
    return f"{name}_json" if json else name


def speech_form(spec: SpeechKind, cap: int, json: bool = False) -> Form[RoleView, Speech]:
    """A speech ending with ``spec.line``, asked in plain text or, with ``json``, as a JSON object (see the module
    docstring)."""
    template = template_for(spec.template, json)

    def schema(view: RoleView) -> dict[str, Any] | None:
        if not json:
            return None
        limit = _text_limit(view, cap, MAX_SPEECH_CHARS)
        least = min(MIN_SPEECH_CHARS, limit // 2)  # a constrained model must argue, not just name a letter
        properties: dict[str, Any] = {"speech": {"type": "string", "minLength": least, "maxLength": limit}}
        if spec.verdict:
            properties["verdict"] = {"type": "string", "enum": list(VERDICTS)}
        properties["answer"] = _answer_schema(view, spec.same)
        return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}

    def fields(view: RoleView) -> tuple[FieldSpec, ...]:
        speech = FieldSpec(
            "speech", "text", f"Your words as the {view.title}", max_chars=MAX_SPEECH_CHARS, words=True, noun="speech"
        )
        verdict = (FieldSpec("verdict", "choice", "Your verdict", choices=VERDICTS),) if spec.verdict else ()
        return (speech, *verdict, _answer_field(view, spec.same))

    def from_human(values: Mapping[str, Any], view: RoleView) -> Speech:
        answer = normalize_answer(values.get("answer"), view.question, allow_same=spec.same)
        verdict = values.get("verdict") if spec.verdict else None
        return Speech(_compose(values["speech"], spec, answer, verdict, None), answer, verdict)

    return Form(
        kind=spec.kind,
        description=spec.description,
        render=lambda view: render(template, view, **spec.extra(view)),
        parse=_speech_parser(spec),
        fallback=lambda view: Speech("", None, None, "no speech"),
        fields=fields,
        from_human=from_human,
        human_raw=lambda speech: speech.text,
        describe=lambda view: spec.description,
        schema=schema,
        token_cap=lambda config: min(config.max_new_tokens, cap),
        template=template,
    )


def short_form(
    kind: str, description: str, template: str, key: str, label: str, cap: int, json: bool = False
) -> Form[RoleView, Speech]:
    """One short public text: plain, or with ``json`` in ``{key: ...}`` (a reply to a point, a Socratic question)."""
    template = template_for(template, json)

    def parse(raw: str, view: RoleView) -> tuple[Speech, str | None]:
        note = None
        text: Any = raw
        if raw.lstrip().startswith("{"):
            data, note = load_object(raw)
            text = data.get(key)
        if not isinstance(text, str) or not any(ch.isalnum() for ch in text):
            raise FormInvalid(f"no {key} in the output")
        return Speech(text.strip()), note

    return Form(
        kind=kind,
        description=description,
        render=lambda view: render(template, view),
        parse=parse,
        fallback=lambda view: Speech(""),
        fields=lambda view: (FieldSpec(key, "text", label, max_chars=MAX_SHORT_CHARS, words=True, noun=key),),
        from_human=lambda values, view: Speech(values[key]),
        human_raw=lambda speech: speech.text,
        describe=lambda view: description,
        schema=lambda view: (
            {
                "type": "object",
                "properties": {
                    key: {"type": "string", "minLength": 1, "maxLength": _text_limit(view, cap, MAX_SHORT_CHARS)}
                },
                "required": [key],
                "additionalProperties": False,
            }
            if json
            else None
        ),
        token_cap=lambda config: min(config.max_new_tokens, cap),
        template=template,
    )


def read_speech(text: str, view: RoleView, line: str) -> Speech:
    """What a plain-text speech says: its text and the answer its last ``line`` names (the problem noted if none)."""
    said = find_line(text, line)
    answer = normalize_answer(said, view.question)
    return Speech(text, answer, None, _problem(SpeechKind("", "", "", line), view, answer, said))


def _plain_text(raw: str, view: RoleView) -> tuple[str, str | None]:
    if not any(ch.isalnum() for ch in raw):
        raise FormInvalid("an empty speech")
    return raw.strip(), None


def streamed_form(spec: SpeechKind, cap: int) -> Form[RoleView, str]:
    """A speech generated as it is disclosed: plain text ending with its ``spec.line`` (the kernel asks it in steps)."""

    def fields(view: RoleView) -> tuple[FieldSpec, ...]:
        speech = FieldSpec(
            "speech", "text", f"Your words as the {view.title}", max_chars=MAX_SPEECH_CHARS, words=True, noun="speech"
        )
        return (speech, _answer_field(view, False))

    def from_human(values: Mapping[str, Any], view: RoleView) -> str:
        answer = normalize_answer(values.get("answer"), view.question)
        return _compose(values["speech"], spec, answer, None, None)

    return Form(
        kind=spec.kind,
        description=spec.description,
        render=lambda view: render(spec.template, view, **spec.extra(view)),
        parse=_plain_text,
        fallback=lambda view: "",
        fields=fields,
        from_human=from_human,
        human_raw=lambda text: text,
        describe=lambda view: spec.description,
        token_cap=lambda config: min(config.max_new_tokens, cap),
        template=spec.template,
    )


def continuation_form(kind: str, description: str, template: str, line: str, cap: int) -> Form[RoleView, str]:
    """The rest of the prover's own speech, continued from what it has disclosed (``view.speech``).

    The prepared rest (``view.reply`` is the exchange; ``view.rebuttal`` holds
    the rest it had prepared) is the fallback, and what a person's blank
    answer keeps. A model is asked it in steps, as it is disclosed (the
    kernel's ``resume_streaming`` and ``revise_streaming``); a model whose
    backend cannot continue a partial reply is asked ``<template>_prompted``,
    with what it said in the prompt, and its answer is the rest.
    """

    def parse(raw: str, view: RoleView) -> tuple[str, str | None]:
        if not any(ch.isalnum() for ch in raw):
            raise FormInvalid("an empty continuation")
        return raw.strip(), None

    def from_human(values: Mapping[str, Any], view: RoleView) -> str:
        text: str = values.get("rest") or ""
        return text or prepared(view)

    def prepared(view: RoleView) -> str:
        return view.rebuttal

    return Form(
        kind=kind,
        description=description,
        render=lambda view: render(template, view),
        parse=parse,
        fallback=prepared,
        fields=lambda view: (
            FieldSpec("rest", "text", "The rest of your speech (blank: as you wrote it)", required=False, noun="rest"),
        ),
        from_human=from_human,
        human_raw=lambda text: text,
        describe=lambda view: description,
        assistant_prefix=lambda view: view.speech.rstrip() + " ",
        said_in_prompt=lambda view, said: render(f"{template}_prompted", view, speech=said.strip()),
        token_cap=lambda config: min(config.max_new_tokens, cap),
        cacheable=False,
        template=template,
    )


def _final_parse(raw: str, view: RoleView) -> tuple[Speech, str | None]:
    note = None
    said: Any
    if raw.lstrip().startswith("{"):
        data, note = load_object(raw)
        said = data.get("final_answer")
    else:
        said = find_line(raw, "final answer") or raw.strip().splitlines()[0] if raw.strip() else None
    answer = normalize_answer(said if isinstance(said, str) else None, view.question)
    if answer is None:
        raise FormInvalid(f"no final answer naming {', '.join(view.question.labels) or 'an answer'}")
    return Speech(f"Final Answer: {answer}", answer), note


def final_form(json: bool = False) -> Form[RoleView, Speech]:
    """The prover's one-line final answer (``Final Answer: ...``, or with ``json`` ``{"final_answer"}``): the
    debate's answer."""
    template = template_for("final", json)
    return Form(
        kind="final",
        description="the final answer",
        render=lambda view: render(template, view, record=_record(view)),
        parse=_final_parse,
        fallback=lambda view: Speech(
            f"Final Answer: {view.current_answer}" if view.current_answer else "", view.current_answer
        ),
        fields=lambda view: (_answer_field(view, False),),
        from_human=lambda values, view: Speech(f"Final Answer: {values['answer']}", values["answer"]),
        human_raw=lambda speech: speech.text,
        describe=lambda view: "Your final answer: the debate's answer",
        schema=lambda view: (
            {
                "type": "object",
                "properties": {"final_answer": _answer_schema(view, False)},
                "required": ["final_answer"],
                "additionalProperties": False,
            }
            if json
            else None
        ),
        token_cap=lambda config: min(config.max_new_tokens, 48),
        template=template,
    )


def _record(view: RoleView) -> str:
    if view.rebuttal:
        return f'The {view.other} answered your speech with this rebuttal:\n"{view.rebuttal}"'
    if view.transcript:
        return "The debate:\n" + "\n".join(view.transcript)
    return ""
