"""The set-up form: question, agents, protocol, rules, model, seat and pacing; and the config it builds.

What it does: ``build_setup()`` lays out the form and returns its components;
``setup_config.config_from_form(...)`` turns the form's values into a validated
``DebateConfig`` (re-exported here); sample
questions come from ``assets/sample_questions.json``. The protocol is any
registered one: choosing it offers its variants, fills its parameters (JSON,
the paper's defaults) and describes the roles the chosen variant fills;
agents can be given roles, one ``Name: role`` per line, and the seat a
person may take is labelled with the role it gets (``seat_roles``: roles
are filled in seat order, so HandRaiser's third agent is the moderator and
ACE's the observer). A variant that takes fewer agents cuts the names to
its number, one that needs more than are left fills them from the default
names (the baselines' one-seat default, then TAR's three). Choosing the
embedded tiny model sets short debates and writes the chosen protocol's
parameters for small models into the parameters field, visibly
(``model_presets``). Choosing a protocol fills the question with its own demo
question (Meeting Scheduling's case), or the shared one, unless the person
edited it; "Models per role" gives seats models of their own
(``setup_fields``; checked by ``backend_choice.page_models`` on Start).

What it does not do: start debates (``live_panel`` does).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gradio as gr

from debate_core.config import (
    DEFAULT_AGENT_NAMES,
    DEFAULT_PROTOCOL,
    MAX_OPTION_LENGTH,
    MAX_OPTIONS,
    MAX_PERSONA_LENGTH,
    MAX_QUESTION_LENGTH,
    DebateConfig,
)
from debate_core.protocols.base import RoleSpec
from debate_core.protocols.registry import agent_limit, available, protocol_class
from ui import web_plugins
from ui.backend_choice import MAX_MODEL_CHARS
from ui.model_presets import PARAMS_LABEL, default_params, model_chosen, protocol_params
from ui.session import EMBEDDED, EMBEDDED_LLAMACPP, SCRIPTED, SERVER
from ui.setup_config import names_of, seat_roles
from ui.setup_fields import models_box, wire_question


def _demo() -> DebateConfig:
    """The demo debate the page starts from (its question and agents fill the form)."""
    return web_plugins.demo_config()


SAMPLES = Path(__file__).resolve().parent.parent / "assets" / "sample_questions.json"
NO_HUMAN = "nobody (all agents are models)"
BUDGET_INFO = (
    "The debate ends in the turn its disclosed words reach the budget; that sentence is said whole, "
    "so the count may end a little past it (the paper's rule)."
)
OTHER_MODEL = "a model id or path"
# What each model choice costs, said next to it (bench/embedded_pace.py measures the embedded model).
MODEL_CHOICES = [
    (f"{SCRIPTED} · instant, a fixed classroom scenario", SCRIPTED),
    (f"{EMBEDDED_LLAMACPP} · about 3-6 s per turn on 2 cores; the same tiny model, 4-bit", EMBEDDED_LLAMACPP),
    (f"{EMBEDDED} · about 10-15 s per turn on 2 cores; tiny, its text is poor", EMBEDDED),
    (f"{OTHER_MODEL} · depends on the model and the machine", OTHER_MODEL),
    (f"{SERVER} · vLLM, llama.cpp, ...: its address and model name below", SERVER),
]
# The browser stops a paste far above any field's limit; the limits themselves are checked when the
# debate starts, with a message that gives the length and the limit (never a silent cut).
BROWSER_MAX_CHARS = 1_000_000


@dataclass
class SetupForm:
    question: Any
    options: Any
    answer: Any
    sample: Any
    agents: Any
    personas: Any
    human: Any
    protocol: Any
    condition: Any
    params: Any
    roles: Any
    budget: Any
    backend: Any
    model: Any
    models: Any
    temperature: Any
    seed: Any
    utterance_tokens: Any
    plan_tokens: Any
    layout: Any
    pace: Any
    human_pacing: Any
    human_seconds: Any

    def names(self) -> list[str]:
        """The fields whose values ``config_from_form`` and the live panel read."""
        return [name for name in self.__dataclass_fields__ if name != "sample"]

    def inputs(self) -> list[Any]:
        return [getattr(self, name) for name in self.names()]


def load_samples() -> list[dict[str, Any]]:
    return list(json.loads(SAMPLES.read_text(encoding="utf-8")))


def build_setup() -> SetupForm:
    with gr.Row():
        with gr.Column(scale=3):
            question = gr.Textbox(
                label="Question",
                value=_demo().question.text,
                lines=2,
                max_lines=12,
                max_length=BROWSER_MAX_CHARS,
                elem_id="setup-question",
                info=f"up to {MAX_QUESTION_LENGTH:,} characters",
            )
            options = gr.Textbox(
                label="Options, one per line (labelled A, B, C, …; leave empty for a free-form question)",
                value="\n".join(_demo().question.options),
                lines=4,
                max_lines=12,
                max_length=BROWSER_MAX_CHARS,
                elem_id="setup-options",
                info=f"up to {MAX_OPTIONS} options of {MAX_OPTION_LENGTH:,} characters each",
            )
            with gr.Row():
                answer = gr.Textbox(
                    label="Correct answer (a label such as B; optional)",
                    value="B",
                    max_length=BROWSER_MAX_CHARS,
                    elem_id="setup-answer",
                )
                sample = gr.Button("Sample MMLU-style question", elem_id="sample-question")
        with gr.Column(scale=2):
            agents = gr.Textbox(
                label="Agents (names, comma-separated; the protocol says how many)",
                value="Alex, Chris, Jenny",
                max_length=BROWSER_MAX_CHARS,
                elem_id="setup-agents",
            )
            personas = gr.Textbox(
                label="Personas, one per line as Name: persona (optional)",
                lines=3,
                max_lines=10,
                max_length=BROWSER_MAX_CHARS,
                value="\n".join(f"{a.name}: {a.persona}" for a in _demo().agents),
                elem_id="setup-personas",
                info=f"up to {MAX_PERSONA_LENGTH:,} characters each",
            )
            human = gr.Dropdown(
                label="Take a seat yourself",
                choices=[NO_HUMAN, "Alex", "Chris", "Jenny"],
                value=NO_HUMAN,
                elem_id="human-seat",
            )
    protocols = list(available())
    with gr.Row():
        protocol = gr.Dropdown(protocols, value=DEFAULT_PROTOCOL, label="Protocol", elem_id="protocol-choice")
        condition = gr.Radio(
            list(protocol_class(DEFAULT_PROTOCOL).variants),
            value="interruptible",
            label="Variant",
            elem_id="variant-choice",
        )
        budget = gr.Slider(
            20, 2000, value=300, step=10, label="Public token budget", info=BUDGET_INFO, elem_id="budget-setting"
        )
        backend = gr.Dropdown(
            MODEL_CHOICES,
            value=SCRIPTED,
            label="Model",
            elem_id="backend-choice",
            info="The scripted demo needs no model; the embedded model runs on any CPU, slowly.",
        )
        model = gr.Textbox(
            label="Model id or local path, or a server's address and model name (for the last two choices)",
            placeholder="meta-llama/Llama-3.1-8B-Instruct  ·  http://127.0.0.1:8000/v1 llama-8b [dialect=vllm]",
            max_length=MAX_MODEL_CHARS,
            elem_id="model-id",
        )
    with gr.Accordion("More settings", open=False):
        with gr.Row():
            params = gr.Code(
                value=default_params(DEFAULT_PROTOCOL),
                language="json",
                label=PARAMS_LABEL,
                elem_id="params",
            )
            roles = gr.Textbox(
                label="Roles, one per line as Name: role (empty: assigned in seat order)",
                lines=3,
                info=_roles_info(DEFAULT_PROTOCOL),
                elem_id="roles",
            )
            models = models_box()
        with gr.Row():
            temperature = gr.Slider(0, 1.5, value=0.3, step=0.05, label="Temperature")
            seed = gr.Number(value=1, precision=0, label="Seed")
            utterance_tokens = gr.Slider(
                16, 1024, value=80, step=8, label="Max new tokens per utterance", elem_id="utterance-tokens"
            )
            plan_tokens = gr.Slider(
                48, 1024, value=1024, step=16, label="Max new tokens per plan", elem_id="plan-tokens"
            )
            layout = gr.Radio(
                ["paper", "cached"],
                value="cached",
                label="Prompt layout",
                info="paper: Algorithm 1 as printed; cached: append-only, reuses the model's cache",
            )
        with gr.Row():
            pace = gr.Slider(0, 5, value=0.6, step=0.1, label="Seconds per sentence (pace)", elem_id="pace")
            human_pacing = gr.Radio(
                ["wait for me", "advance on a timer"],
                value="wait for me",
                label="When the debate needs your words",
                info="The debate never waits for your plans: it takes your live controls as they stand.",
                elem_id="human-pacing",
            )
            human_seconds = gr.Slider(
                3, 300, value=60, step=1, label="Timer: seconds to answer or speak", elem_id="human-seconds"
            )
    form = SetupForm(
        question,
        options,
        answer,
        sample,
        agents,
        personas,
        human,
        protocol,
        condition,
        params,
        roles,
        budget,
        backend,
        model,
        models,
        temperature,
        seed,
        utterance_tokens,
        plan_tokens,
        layout,
        pace,
        human_pacing,
        human_seconds,
    )
    sample.click(_sample, outputs=[question, options, answer])
    wire_question(protocol, question, options, answer)
    fit_in, fit_out = [protocol, condition, agents, personas], [agents, personas]
    # the seats are labelled with the roles they would get ("Jenny · moderator"), so a person finds theirs
    seats_in = [agents, human, protocol, condition, roles]
    # the variant is read once the new protocol's variants are in: read at once, it would be the old protocol's,
    # which the new choices refuse (an error on the page)
    chosen = protocol.change(_protocol_chosen, inputs=[protocol, backend], outputs=[condition, params, roles])
    chosen.then(_fit_agents, inputs=fit_in, outputs=fit_out).then(_human_choices, inputs=seats_in, outputs=human)
    condition.input(_variant_chosen, inputs=[protocol, condition], outputs=roles)
    condition.input(_fit_agents, inputs=fit_in, outputs=fit_out)
    for changed in (agents.change, condition.change, roles.change):
        changed(_human_choices, inputs=seats_in, outputs=human)
    backend.input(
        model_chosen,
        inputs=[backend, protocol, params],
        outputs=[budget, utterance_tokens, plan_tokens, layout, params],
    )
    return form


def _roles_info(name: str, variant: str | None = None) -> str:
    """The roles protocol ``name``'s ``variant`` fills (a variant may need other roles than the protocol's
    default: ACE's parallel baseline has debaters only), in the order seats fill them."""
    cls = protocol_class(name)
    chosen = variant if variant in cls.variants else cls.default_variant()
    specs = cls(chosen, cls.Params()).role_specs()
    if not specs:
        return f"{name} has no roles: every agent debates."
    return "Roles, filled in seat order: " + "; ".join(f"{r.name} ({_how_many(r)}: {r.description})" for r in specs)


def _how_many(spec: RoleSpec) -> str:
    if spec.maximum is None:
        return f"{spec.minimum} or more"
    return str(spec.minimum) if spec.minimum == spec.maximum else f"{spec.minimum} to {spec.maximum}"


def _protocol_chosen(name: str, backend: str = SCRIPTED) -> tuple[Any, Any, Any]:
    """The protocol's variants, its parameters (the paper's defaults; with the embedded model chosen, its
    parameters for small models written in) and its roles."""
    cls = protocol_class(name)
    return (
        gr.update(choices=list(cls.variants), value=cls.default_variant()),
        protocol_params(name, backend),
        gr.update(info=_roles_info(name)),
    )


def _variant_chosen(name: str, variant: str) -> Any:
    return gr.update(info=_roles_info(name, variant))


def _agents_needed(name: str, variant: str) -> int:
    """How many agents protocol ``name``'s ``variant`` needs at least (baselines' tar: three, one per role)."""
    cls = protocol_class(name)
    chosen = cls(variant if variant in cls.variants else cls.default_variant(), cls.Params())
    return max(chosen.min_agents, sum(spec.minimum for spec in chosen.role_specs()))


def _fit_agents(name: str, variant: str, agents: str, personas: str) -> list[Any]:
    """Fewer agents (and their personas) when the variant takes fewer (parliament: prover and critic; cot: one);
    more, named from the defaults, when it needs more than are left (tar after cot: back to three seats)."""
    limit = agent_limit(name, variant)
    names = names_of(agents)
    needed = _agents_needed(name, variant)
    if len(names) < needed:
        wanted = max(needed, min(len(DEFAULT_AGENT_NAMES), limit or len(DEFAULT_AGENT_NAMES)))
        spare = [n for n in (*DEFAULT_AGENT_NAMES, *(f"Agent{i}" for i in range(1, wanted + 1))) if n not in names]
        return [", ".join(names + spare[: wanted - len(names)]), gr.skip()]
    if limit is None or len(names) <= limit:
        return [gr.skip(), gr.skip()]
    kept = names[:limit]
    lines = [line for line in (personas or "").splitlines() if line.partition(":")[0].strip() in kept]
    return [", ".join(kept), "\n".join(lines)]


def _sample() -> tuple[str, str, str]:
    item = random.choice(load_samples())
    return item["question"], "\n".join(item["options"]), item["answer"]


def _human_choices(
    agents: str, current: str, protocol: str = DEFAULT_PROTOCOL, variant: str = "", roles: str = ""
) -> Any:
    names = names_of(agents)
    role_of = seat_roles(protocol, variant, agents, roles)
    choices = [(NO_HUMAN, NO_HUMAN)] + [(f"{n} · {role_of[n]}" if n in role_of else n, n) for n in names]
    return gr.update(choices=choices, value=current if current in names else NO_HUMAN)
