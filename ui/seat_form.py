"""The person's seat in the web app: any request kind, drawn from its fields.

What it does: Gradio needs its components up front, so ``SeatForm`` builds a
small pool of widget slots per field kind (radios for choices, sliders for
integers, text boxes for texts, check boxes for yes/no), hidden until used.
``updates(request)`` fills the slots a request's ``FieldSpec``\\ s need (in
order: the first choice field takes the first radio, ...), with their labels,
choices, ranges, defaults and help (shown under the label: what each of ACE's
acts does, how to write item pairs), and hides the rest; ``values(request, slots)``
maps what the person set back to field names for ``HumanChannel.submit``. A
request with more fields of one kind than there are slots is refused with a
message (ACE's analysis fills all three yes/no and all three text slots). The prompt and the
labels of a choice's values come from ``seat_words`` (the wordings protocols
register: a moderator's vote reads "Vote for Pro: ..."; the values submitted
stay the request's own).

What it does not do: validate (the channel does at submit time) or know any
request kind by name (``seat_words`` words the few that need it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gradio as gr

from debate_core.kernel.forms import FieldSpec
from debate_core.kernel.human import HumanRequest
from ui import seat_words

SLOTS = {"choice": 3, "integer": 2, "text": 3, "boolean": 3}  # ACE's analysis: three yes/no and three texts
# Far above any field's limit: a long paste reaches the channel whole and is refused with its length,
# never cut silently by the browser.
MAX_TEXT_CHARS = 200_000


@dataclass
class SeatForm:
    box: Any
    prompt: Any
    slots: dict[str, list[Any]]
    submit: Any
    message: Any

    def inputs(self) -> list[Any]:
        return [slot for kind in SLOTS for slot in self.slots[kind]]

    def outputs(self) -> list[Any]:
        return [self.box, self.prompt, *self.inputs(), self.message]


def build_seat_form() -> SeatForm:
    with gr.Group(visible=False, elem_id="seat") as box:
        prompt = gr.Markdown("", elem_id="seat-prompt")
        slots: dict[str, list[Any]] = {kind: [] for kind in SLOTS}
        for i in range(SLOTS["choice"]):
            slots["choice"].append(gr.Radio([], label="", visible=False, elem_id=f"seat-choice-{i}"))
        for i in range(SLOTS["integer"]):
            slots["integer"].append(gr.Slider(0, 9, value=0, step=1, visible=False, elem_id=f"seat-integer-{i}"))
        # yes/no before texts: a decision's box before its point, ACE's verdicts before the items they cite
        for i in range(SLOTS["boolean"]):
            slots["boolean"].append(gr.Checkbox(label="", visible=False, elem_id=f"seat-boolean-{i}"))
        for i in range(SLOTS["text"]):
            slots["text"].append(
                gr.Textbox(label="", lines=3, max_length=MAX_TEXT_CHARS, visible=False, elem_id=f"seat-text-{i}")
            )
        submit = gr.Button("Submit", variant="primary", elem_id="seat-submit")
    message = gr.HTML("", elem_id="seat-message")  # outside the box: "sent" stays visible once it folds away
    return SeatForm(box, prompt, slots, submit, message)


def _kind(spec: FieldSpec) -> str:
    return "choice" if spec.choices else spec.kind


def assign(fields: tuple[FieldSpec, ...]) -> list[tuple[FieldSpec, str, int]]:
    """Each field's slot: (field, slot kind, index); raises ``ValueError`` when slots run out."""
    used = dict.fromkeys(SLOTS, 0)
    placed = []
    for spec in fields:
        kind = _kind(spec)
        if used[kind] >= SLOTS[kind]:
            raise ValueError(f"this request has more {kind} fields than the page can show")
        placed.append((spec, kind, used[kind]))
        used[kind] += 1
    return placed


OPTIONAL = " (optional)"


def shown_label(spec: FieldSpec) -> str:
    """A field's label as shown: an optional field says so once (a label that already does is left as it is)."""
    text = spec.label.strip()
    if spec.required or text.lower().endswith(OPTIONAL.strip()):
        return text
    return text + OPTIONAL


# Where each kind's slots begin in ``SeatForm.inputs()`` (the kinds in ``SLOTS`` order).
OFFSETS = {kind: sum(list(SLOTS.values())[:i]) for i, kind in enumerate(SLOTS)}


def _shown(spec: FieldSpec, kind: str, request: HumanRequest) -> dict[str, Any]:
    """A slot's properties for ``spec``, its value aside: visible, label, help, choices or bounds."""
    # the help is shown under the label for every kind ("" clears what a slot's last field had)
    shown: dict[str, Any] = {"visible": True, "label": shown_label(spec), "info": spec.help}
    if kind == "choice":
        shown["choices"] = seat_words.choices(request, spec)
    elif kind == "integer":
        shown.update(minimum=spec.minimum or 0, maximum=spec.maximum if spec.maximum is not None else 100)
    return shown


def _update(spec: FieldSpec, kind: str, request: HumanRequest) -> Any:
    shown = _shown(spec, kind, request)
    if kind == "choice":
        return gr.update(**shown, value=spec.default)
    if kind == "integer":
        return gr.update(**shown, value=spec.default or shown["minimum"])
    if kind == "boolean":
        return gr.update(**shown, value=bool(spec.default))
    return gr.update(**shown, value="", placeholder="")


def updates(request: HumanRequest | None, form: SeatForm) -> list[Any]:
    """Values for ``form.outputs()``: the box, the prompt, every slot, the message."""
    hidden = [gr.update(visible=False) for _ in form.inputs()]
    if request is None:
        return [gr.update(visible=False), gr.skip(), *hidden, gr.skip()]
    try:
        placed = assign(request.fields)
    except ValueError as error:
        return [gr.update(visible=True), request.prompt, *hidden, f"**Cannot show this request:** {error}"]
    slots = hidden
    for spec, kind, index in placed:
        slots[OFFSETS[kind] + index] = _update(spec, kind, request)
    return [gr.update(visible=True), seat_words.prompt(request), *slots, ""]


def shown_again(request: HumanRequest, form: SeatForm) -> list[Any]:
    """Values for ``form.outputs()`` that show ``request``'s form once more without touching what the person has
    entered: the box and each of its fields made visible again with their labels and choices, no values.

    Gradio mounts a hidden component again when it is shown; a form hidden and shown again within a moment could
    stay hidden, its box or a field in it (``live_stream`` sends this a moment after the form).
    """
    again = [gr.skip() for _ in form.inputs()]
    try:
        placed = assign(request.fields)
    except ValueError:
        return [gr.update(visible=True), gr.skip(), *again, gr.skip()]
    for spec, kind, index in placed:
        again[OFFSETS[kind] + index] = gr.update(**_shown(spec, kind, request))
    return [gr.update(visible=True), gr.skip(), *again, gr.skip()]


def values(request: HumanRequest, slot_values: list[Any]) -> dict[str, Any]:
    """What the person set, by field name (blank texts and unset choices as None)."""
    result: dict[str, Any] = {}
    for spec, kind, index in assign(request.fields):
        value = slot_values[OFFSETS[kind] + index]
        if kind == "integer" and value is not None:
            value = int(value)
        if isinstance(value, str) and not value.strip() and kind != "text":
            value = None
        result[spec.name] = value
    return result
