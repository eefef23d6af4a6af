"""``python -m debate_core``: run a debate in the terminal, or list the protocols.

What it does::

    python -m debate_core run [--protocol NAME] [--variant V | --condition C] [--param KEY=VALUE ...] ...
    python -m debate_core protocols

``run`` builds a ``DebateConfig`` from command-line options (or the built-in
demo question and agents when no question is given), builds the backend with
``backends.factory`` (``--backend scripted`` runs the protocol's scripted demo,
no model; ``--model-for WHO=SPEC`` gives an agent or a role a model of its own,
``backends.model_for``), runs the debate and shows it live with ``terminal.TerminalRenderer``.
``--small-model`` adds the parameters the protocol recommends for a small
model (``Protocol.small_model_params``; ``--param`` wins) and says which it
set (``make cli`` passes it, for the embedded SmolLM2-135M).
``--events-jsonl FILE`` writes every event as one JSON line, flushed as it
happens, so an interrupted run keeps everything said so far. ``--db`` records
it through the storage package's sink. ``--human NAME`` puts you in NAME's
seat: the debate runs in a background thread and you answer whatever it asks,
one line each (see ``human``). ``protocols`` lists every registered protocol
with its variants, roles, parameters and defaults, and request kinds.

What it does not do: serve the web app, or decide anything about a debate.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import queue
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from pydantic import ValidationError
from rich.console import Console
from rich.text import Text

from console.announce import announce
from console.human import ask_line
from console.listing import show_protocols
from console.terminal import TerminalRenderer, make_console
from debate_core.backends.base import Backend
from debate_core.backends.factory import BackendSpec, backend_kinds, make_backend, server_options
from debate_core.backends.model_for import SeatBackends, check_who, parse_model_for
from debate_core.backends.router import BackendRouter
from debate_core.config import (
    DEFAULT_HISTORY_WINDOW,
    DEFAULT_MAX_NEW_TOKENS,
    DEFAULT_MAX_SILENT_TURNS,
    DEFAULT_MAX_TURNS,
    DEFAULT_PROTOCOL,
    DEFAULT_SEED,
    DEFAULT_SEGMENTER,
    DEFAULT_TEMPERATURE,
    DEFAULT_TOKEN_BUDGET,
    SEGMENTERS,
    AgentSpec,
    Condition,
    DebateConfig,
    PromptLayout,
    Question,
    SeatKind,
    SuppliedInitialAnswer,
)
from debate_core.debate import Debate
from debate_core.demo import DEMO_AGENTS, DEMO_QUESTION
from debate_core.errors import BackendError, ConfigError
from debate_core.events import Event, event_to_json
from debate_core.kernel.human import HumanChannel
from debate_core.kernel.seats import HumanSeat, Seat
from debate_core.protocols.registry import agent_limit, protocol_class, small_model_params, with_settings


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m debate_core", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("protocols", help="list the protocols, their variants, roles and parameters")
    run = commands.add_parser("run", help="run one debate and show it live")
    q = run.add_argument_group("question (default: a built-in demo question)")
    q.add_argument("--question", help="the question text")
    q.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="TEXT",
        help="a multiple-choice option; repeat for B, C, ... (labels are A, B, C, ...)",
    )
    q.add_argument("--answer", help="the correct answer (an option label such as B)")
    q.add_argument("--context", default="", help="supporting material some protocols show to some roles")
    a = run.add_argument_group("agents")
    a.add_argument("--agents", help="comma-separated agent names (default: Alex,Chris,Jenny)")
    a.add_argument("--persona", action="append", default=[], metavar="NAME=TEXT", help="a persona")
    a.add_argument("--role", action="append", default=[], metavar="NAME=ROLE", help="an agent's role")
    a.add_argument(
        "--initial",
        action="append",
        default=[],
        metavar="NAME=ANSWER[:REASON]",
        help="supply NAME's initial answer instead of generating it",
    )
    a.add_argument("--human", metavar="NAME", help="take NAME's seat yourself at the terminal")
    a.add_argument(
        "--human-timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="fall back on your behalf when you do not answer in time (default: wait)",
    )
    r = run.add_argument_group("protocol and rules")
    r.add_argument("--protocol", default=DEFAULT_PROTOCOL, help="a registered protocol (see `protocols`)")
    r.add_argument("--variant", help="the protocol's variant (default: its first)")
    r.add_argument(
        "--condition",
        choices=[c.value for c in Condition],
        help=f"{DEFAULT_PROTOCOL}'s variant by its name in the paper (an alias of --variant)",
    )
    r.add_argument(
        "--param", action="append", default=[], metavar="KEY=VALUE", help="a protocol parameter (JSON value)"
    )
    r.add_argument(
        "--small-model",
        action="store_true",
        help="the parameters the protocol recommends for a small model such as the embedded SmolLM2-135M "
        "(listed by `protocols`; the defaults are the paper's; --param wins)",
    )
    r.add_argument("--budget", type=int, default=DEFAULT_TOKEN_BUDGET, help="public token budget")
    r.add_argument("--seed", type=int, default=DEFAULT_SEED)
    r.add_argument("--temperature", type=float, default=DEFAULT_TEMPERATURE)
    r.add_argument("--max-new-tokens", type=int, default=DEFAULT_MAX_NEW_TOKENS)
    r.add_argument(
        "--utterance-max-new-tokens",
        type=int,
        default=None,
        help="a tighter cap for utterances only (short demos on a CPU)",
    )
    r.add_argument(
        "--history-window",
        type=int,
        default=DEFAULT_HISTORY_WINDOW,
        metavar="N",
        help="the last N turns of history in a prompt, for protocols that take it (default: all)",
    )
    r.add_argument(
        "--segmenter",
        default=DEFAULT_SEGMENTER,
        metavar="NAME",
        help=f"sentence segmenter: {', '.join(SEGMENTERS)} or spacy:PACKAGE "
        "(default: pySBD with the debate's rules; spacy: a trained spaCy pipeline)",
    )
    r.add_argument("--max-turns", type=int, default=DEFAULT_MAX_TURNS, help="a stall guard: a debate's most turns")
    r.add_argument(
        "--max-silent-turns", type=int, default=DEFAULT_MAX_SILENT_TURNS, help="a stall guard: silent turns in a row"
    )
    r.add_argument(
        "--no-stall-guards", action="store_true", help="no stall guard: only the protocol's own ending ends a debate"
    )
    m = run.add_argument_group("model and output")
    m.add_argument(
        "--backend",
        choices=backend_kinds(),
        default="scripted",
        help="scripted: the protocol's demo scenario, no model; transformers: a model in this process; "
        "llamacpp: a local GGUF served by llama.cpp; openai: an OpenAI-compatible server (vLLM, llama.cpp, ...)",
    )
    m.add_argument(
        "--model",
        metavar="ID_OR_PATH",
        help="hub id or folder (transformers), .gguf file (llamacpp), or the served model's name (openai); "
        "default: the embedded SmolLM2-135M, or the one model the server serves",
    )
    m.add_argument(
        "--base-url", metavar="URL", help="the server's address for --backend openai, e.g. http://127.0.0.1:8000/v1"
    )
    m.add_argument(
        "--backend-option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a server backend's option: concurrency, timeout_s, retries, top_logprobs, api_key_env (the variable "
        "holding the API key; default OPENAI_API_KEY), dialect, tokenizer; llamacpp: threads, parallel, ctx",
    )
    m.add_argument(
        "--model-for",
        action="append",
        default=[],
        metavar="WHO=SPEC",
        help="a model of its own for an agent or role (a fine-tuned listener, a larger speaker): MODEL (the "
        "--backend's kind; transformers when scripted), KIND:MODEL, openai:MODEL@URL, or scripted:NAME",
    )
    m.add_argument("--device", help="cuda, mps or cpu (default: the best available)")
    m.add_argument("--dtype", help="bfloat16, float16 or float32 (default: chosen per device)")
    m.add_argument("--quantization", choices=["8bit", "4bit"], help="bitsandbytes loading on CUDA")
    m.add_argument(
        "--layout",
        choices=[layout.value for layout in PromptLayout],
        default="paper",
        help="plan prompt layout: paper (Algorithm 1) or cached (append-only, for prefix reuse)",
    )
    m.add_argument("--no-prefix-reuse", action="store_true", help="recompute every prompt from scratch")
    m.add_argument("--events-jsonl", metavar="FILE", help="write every event as a JSON line")
    m.add_argument(
        "--db",
        metavar="PATH_OR_URL",
        help="record the debate in this database (SQLite file or SQLAlchemy URL)",
    )
    m.add_argument("--quiet", action="store_true", help="only print the result")
    m.add_argument("--no-plans", action="store_true", help="hide the per-turn plan lines")
    m.add_argument("--thoughts", action="store_true", help="show each agent's private thought")
    return parser


def _pairs(items: Sequence[str], what: str) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise ConfigError(f"{what} must look like NAME=VALUE, got {item!r}")
        pairs[name.strip()] = value.strip()
    return pairs


def _params(items: Sequence[str]) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for key, value in _pairs(items, "--param").items():
        try:
            params[key] = json.loads(value)
        except json.JSONDecodeError:
            params[key] = value  # a bare word is a string
    return params


def config_from_args(args: argparse.Namespace) -> DebateConfig:
    """Turn parsed options into a validated config (raises ConfigError / ValidationError)."""
    if args.question:
        question = Question(text=args.question, options=tuple(args.option), answer=args.answer, context=args.context)
    elif args.option or args.answer:
        raise ConfigError("--option and --answer need --question")
    else:
        demo = protocol_class(args.protocol).demo_question() or DEMO_QUESTION  # a task's own, if it has one
        question = demo.model_copy(update={"context": args.context}) if args.context else demo
    personas = _pairs(args.persona, "--persona")
    roles = _pairs(args.role, "--role")
    if args.agents:
        names = [n.strip() for n in args.agents.split(",") if n.strip()]
        agents = [AgentSpec(name=n, persona=personas.pop(n, "")) for n in names]
    else:
        limit = agent_limit(args.protocol, args.variant)  # e.g. parliament: a prover and a critic
        agents = [a.model_copy(update={"persona": personas.pop(a.name, a.persona)}) for a in DEMO_AGENTS[:limit]]
    if personas:
        raise ConfigError(f"--persona names unknown agents: {', '.join(sorted(personas))}")
    unknown = sorted(set(roles) - {a.name for a in agents})
    if unknown:
        raise ConfigError(f"--role names unknown agents: {', '.join(unknown)}")
    agents = [a.model_copy(update={"role": roles[a.name]}) if a.name in roles else a for a in agents]
    if args.human:
        if args.human not in [a.name for a in agents]:
            raise ConfigError(f"--human {args.human!r} is not one of the agents")
        agents = [a.model_copy(update={"seat": SeatKind.HUMAN}) if a.name == args.human else a for a in agents]
    initial = {}
    for name, value in _pairs(args.initial, "--initial").items():
        answer, _, reason = value.partition(":")
        initial[name] = SuppliedInitialAnswer(answer=answer.strip(), reason=reason.strip())
    return DebateConfig(
        question=question,
        agents=tuple(agents),
        protocol=args.protocol,
        variant=args.variant,
        condition=Condition(args.condition) if args.condition else None,
        params=with_settings(  # the flags of the protocols that take them; --param wins
            args.protocol,
            {**small_model_set(args), **_params(args.param)},
            utterance_max_new_tokens=args.utterance_max_new_tokens,
            history_window=args.history_window,
            prompt_layout=args.layout,
        ),
        token_budget=args.budget,
        seed=args.seed,
        temperature=args.temperature,
        max_new_tokens=args.max_new_tokens,
        max_turns=None if args.no_stall_guards else args.max_turns,
        max_silent_turns=None if args.no_stall_guards else args.max_silent_turns,
        segmenter=args.segmenter,
        initial_answers=initial,
    )


def small_model_set(args: argparse.Namespace) -> dict[str, Any]:
    """The protocol's parameters for a small model that ``--small-model`` sets (those ``--param`` does not)."""
    if not getattr(args, "small_model", False):
        return {}
    given = _params(args.param)
    return {key: value for key, value in small_model_params(args.protocol).items() if key not in given}


def small_model_note(args: argparse.Namespace) -> str | None:
    """What ``--small-model`` set, and the paper's defaults it replaced, for the person at the terminal."""
    chosen = small_model_set(args)
    if not chosen:
        return None
    defaults = protocol_class(args.protocol).Params().model_dump(mode="json")
    shown = ", ".join(
        f"{key}={json.dumps(value)} (the paper's: {json.dumps(defaults.get(key))})" for key, value in chosen.items()
    )
    return f"For a small model, {args.protocol} runs with {shown}; --param KEY=VALUE sets another."


def backend_from_args(args: argparse.Namespace, config: DebateConfig) -> Backend | BackendRouter:
    """The default backend, and a router when ``--model-for`` gives agents or roles their own models
    (``backends.model_for``: ``WHO=MODEL``, ``WHO=KIND:MODEL``, ``WHO=openai:MODEL@URL``, ``WHO=scripted:NAME``)."""
    spec = BackendSpec(
        kind=args.backend,
        model=args.model,
        device=args.device,
        dtype=args.dtype,
        quantization=args.quantization,
        prefix_reuse=not args.no_prefix_reuse,
        options=server_options(args.backend, args.base_url, args.backend_option),
    )
    models = parse_model_for(args.model_for)
    check_who(models, config)  # before any model is made
    default = make_backend(spec, config)
    # each WHO's own model, and a model the variant seats (a learned listener), if any
    return SeatBackends(spec, models, default=default).route(default, config)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    console = make_console()
    if args.command == "protocols":
        show_protocols(console)
        return 0
    try:
        config = config_from_args(args)
        backend = backend_from_args(args, config)
    except (ConfigError, ValidationError) as error:
        console.print(Text(f"Invalid debate set-up: {error}", style="red"))
        return 2
    except BackendError as error:  # a server backend probes its server at start
        console.print(Text(f"The model server cannot be used: {error}", style="red"))
        return 1
    note = small_model_note(args)
    if note and not args.quiet:
        console.print(Text(note, style="yellow"))
    try:
        announce(backend, console)
    except BackendError as error:
        console.print(Text(f"The model could not be loaded: {error}", style="red"))
        return 1
    channel = HumanChannel() if args.human else None
    seats: dict[str, Seat] = {}
    if channel is not None:
        seats[args.human] = HumanSeat(args.human, channel, timeout_s=args.human_timeout)
    try:
        debate = Debate(config, backend, seats=seats)
        sink = event_sink("db", args.db) if args.db else None
    except ConfigError as error:
        console.print(Text(f"Invalid debate set-up: {error}", style="red"))
        return 2
    renderer = TerminalRenderer(console, show_plans=not args.no_plans, show_thoughts=args.thoughts)
    jsonl = open(args.events_jsonl, "w", encoding="utf-8") if args.events_jsonl else None  # noqa: SIM115
    try:
        events = _threaded(debate, channel, console) if channel else debate.events()
        if sink is not None:
            events = sink(events)
        for event in events:
            if jsonl is not None:
                jsonl.write(event_to_json(event) + "\n")
                jsonl.flush()
            if not args.quiet or event.type == "debate_ended":
                renderer.show(event)
    except BackendError as error:
        console.print(Text(f"The model backend failed: {error}", style="red"))
        return 1
    except KeyboardInterrupt:
        debate.stop()
        console.print(Text("Stopped.", style="yellow"))
        return 130
    finally:
        if jsonl is not None:
            jsonl.close()
    if args.db:
        console.print(Text(f"Recorded as debate {debate.debate_id} in {args.db}", style="dim"))
    return 0


def event_sink(name: str, target: str) -> Callable[[Iterable[Event]], Iterator[Event]]:
    """An installed event sink (entry point group ``interruptible_debate.sinks``).

    The engine stays free of storage imports: ``storage`` registers its
    recorder as the ``db`` sink in the project's metadata.
    """
    from importlib.metadata import entry_points

    found = entry_points(group="interruptible_debate.sinks", name=name)
    if not found:
        raise ConfigError(f"--{name} needs the storage package (pip install -e . installs it)")
    factory = next(iter(found)).load()
    return factory(target)  # type: ignore[no-any-return]


_DONE = object()


def _threaded(debate: Debate, channel: HumanChannel, console: Console) -> Iterator[Event]:
    """Run the debate in a thread; answer the person's requests at the prompt meanwhile."""
    inbox: queue.Queue[object] = queue.Queue()

    def work() -> None:
        try:
            for event in debate.events():
                inbox.put(event)
        except BaseException as error:  # handed to the main thread and re-raised there
            inbox.put(error)
        inbox.put(_DONE)

    threading.Thread(target=work, name="debate", daemon=True).start()
    answered: set[int] = set()
    while True:
        try:
            item = inbox.get(timeout=0.05)
        except queue.Empty:
            request = channel.pending(timeout_s=0)
            if request is not None and request.request_id not in answered:
                answered.add(request.request_id)
                ask_line(request, channel, console, sys.stdin)
            continue
        if item is _DONE:
            return
        if isinstance(item, BaseException):
            raise item
        yield item  # type: ignore[misc]


if __name__ == "__main__":
    with contextlib.suppress(BrokenPipeError):
        sys.exit(main())
