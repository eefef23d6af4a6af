"""What choosing a model sets in the set-up form: short debates and a protocol's parameters for small models.

What it does: ``model_chosen(choice, protocol, params)`` gives the form's new
values when a model is chosen. The embedded tiny model (``SMALL_MODELS``:
in process or on llama.cpp) sets short debates (``EMBEDDED_DEFAULTS``:
budget, caps, layout) and writes the chosen protocol's parameters for small
models (``Protocol.small_model_params``, from the registry) into the
parameters field, whose label names them (``params_label``), so the person
sees them and can edit them back; choosing any other model gives back the
protocol's defaults (its paper's) where the small-model values still stand,
and leaves the person's other edits. ``protocol_params(name, model)`` is the
field for a protocol just chosen: its defaults, with its small-model
parameters written in when the embedded model is the one chosen. The field
leaves out the parameters the form has fields of its own for
(``FORM_SETTINGS``: the utterance cap and the prompt layout, given to the
protocols that take them by ``registry.with_settings``, where a parameter
the JSON names wins): shown there with their defaults, they would override
the fields the person set.

What it does not do: name any protocol (the registry gives what each
recommends), or lay out the form (``setup_panel``).
"""

from __future__ import annotations

import json
from typing import Any

import gradio as gr

from debate_core.config import DEFAULT_PROTOCOL
from debate_core.protocols.registry import protocol_class, small_model_params
from ui.session import EMBEDDED, EMBEDDED_LLAMACPP

SMALL_MODELS = (EMBEDDED, EMBEDDED_LLAMACPP)
# Choosing the embedded model sets short debates, so one reaches its end in a few minutes on two cores. A plan's
# cap holds the longest plan its schema allows (Kimura's: a 240-character thought and an 80-character purpose,
# about 130 of SmolLM2's tokens with the JSON around them): at 96 a rambling thought was cut mid-string, an
# invalid plan. A plan takes only the tokens it needs, so the cap costs nothing until it is reached.
EMBEDDED_DEFAULTS = {"budget": 120, "utterance_tokens": 40, "plan_tokens": 160, "layout": "cached"}
PARAMS_LABEL = "Protocol parameters (JSON)"
# The parameters the set-up form has fields of its own for ("Max new tokens per utterance", "Prompt layout").
FORM_SETTINGS = ("utterance_max_new_tokens", "prompt_layout")


def default_params(name: str) -> str:
    """Protocol ``name``'s parameters with their defaults (its paper's), as the field shows them: all but the
    ``FORM_SETTINGS``, which the form's own fields set."""
    values = protocol_class(name).Params().model_dump(mode="json")
    return json.dumps({key: value for key, value in values.items() if key not in FORM_SETTINGS}, indent=2)


def params_label(name: str, small: bool) -> str:
    """The parameters field's label: it names the parameters set for a small model, so the person sees them."""
    recommended = small_model_params(name) if small else {}
    if not recommended:
        return PARAMS_LABEL
    names = ", ".join(f"{key}={json.dumps(value)}" for key, value in recommended.items())
    return f"{PARAMS_LABEL} · set for the small model: {names} (the paper's default: edit it back)"


def model_chosen(choice: str, protocol: str = DEFAULT_PROTOCOL, params: str = "") -> list[Any]:
    """The budget, the two caps, the layout and the parameters field when model ``choice`` is chosen (see the
    module docstring); ``gr.skip()`` for what stays as it is."""
    small = choice in SMALL_MODELS
    chosen = _small_model_update(protocol or DEFAULT_PROTOCOL, params, small)
    if not small:
        return [gr.skip()] * 4 + [chosen]
    short = EMBEDDED_DEFAULTS
    return [short["budget"], short["utterance_tokens"], short["plan_tokens"], short["layout"], chosen]


def protocol_params(name: str, model: str) -> Any:
    """The parameters field for protocol ``name`` just chosen: its defaults, and its small-model parameters when
    ``model`` is the embedded one."""
    small = model in SMALL_MODELS
    values = {**json.loads(default_params(name)), **(small_model_params(name) if small else {})}
    return gr.update(value=json.dumps(values, indent=2), label=params_label(name, small))


def _small_model_update(name: str, params: str, small: bool) -> Any:
    """The field with ``name``'s small-model parameters written in (``small``) or, where they still stand, given
    back their defaults; left as it is when the protocol recommends none or the field is not a JSON object."""
    recommended = small_model_params(name)
    if not recommended:
        return gr.skip()
    try:
        current = json.loads(params) if params and params.strip() else {}
    except json.JSONDecodeError:
        return gr.skip()  # Start says what is wrong with it
    if not isinstance(current, dict):
        return gr.skip()
    if small:
        updated = {**current, **recommended}
    else:
        defaults = json.loads(default_params(name))
        updated = {
            key: defaults.get(key, value) if key in recommended and recommended[key] == value else value
            for key, value in current.items()
        }
    return gr.update(value=json.dumps(updated, indent=2), label=params_label(name, small))
