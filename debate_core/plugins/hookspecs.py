"""The hooks a plugin may implement, and the markers for them (pluggy, project ``interruptible_debate``).

What it does: declares every hook as a pluggy hook specification. A plugin
is a module (or any object) whose functions are marked ``@hookimpl`` and
named after a hook here; pluggy checks their signatures against these specs
when the plugin is registered. Every hook has the same shape: the engine
hands the plugin a ``register`` callable and the plugin calls it once per
thing it contributes (``register(MyProtocol)``), so one plugin may
contribute several, and the engine knows which plugin contributed what.
The kinds today: protocols, event types, terminal renderers, web renderers,
live controls, commands, report sections, data sets, study kinds and study
preparations. A new kind of extension is one more spec in the same style,
added together with the code that consumes it.

What it does not do: load plugins (``manager``) or keep what they register
(the consumer of each hook does: ``protocols.registry`` for protocols).
"""

from __future__ import annotations

from collections.abc import Callable

import pluggy

# The specs name what a hook registers in words and type it as ``type``/``object``: importing
# ``Protocol`` or ``EventBase`` here (even for type checking) would tie the plugin manager, which the
# event registry and the protocol registry ask, back to the things they register: a circle.

PROJECT = "interruptible_debate"

hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec
def register_protocols(register: Callable[[type], object]) -> None:
    """Contribute debate protocols: call ``register(ProtocolClass)`` once per protocol.

    Each class is a ``debate_core.protocols.Protocol`` subclass with a unique
    ``name``; the registry refuses a name that another plugin registered too.
    The hook is called once per process, the first time protocols are looked
    up, so a plugin may import its protocol's modules inside the hook.
    """


@hookspec
def register_commands(register: Callable[[object], object]) -> None:
    """Contribute sub-commands of ``python -m experiments``: call ``register(experiments.extensions.Command(...))``.

    A ``Command`` has a ``name``, ``add_parser(commands)`` (adds its argparse
    parser) and ``run(args, console)`` (its exit status). A name taken by a
    built-in command or an earlier plugin is left out and recorded. Import the
    study code (``<protocol>/study/``) inside the hook: the engine never imports it.
    """


@hookspec
def register_report_sections(register: Callable[[object], object]) -> None:
    """Contribute parts of a comparison report: call ``register(experiments.extensions.ReportSection(...))``.

    A ``ReportSection`` has a ``name``, ``build(store, runs, systems)``
    returning a ``Section`` (markdown lines, figures), and optionally a
    ``control`` system the report compares the others against. Sections follow
    the plugins' order.
    """


@hookspec
def register_datasets(register: Callable[[object], object]) -> None:
    """Contribute question sources: call ``register(experiments.extensions.Dataset(...))``.

    A ``Dataset`` has a ``name`` (``compare --data NAME=N``) and
    ``items(request)`` returning the study's ``Item``s for a ``DataRequest``
    (``n``, ``seed``, ``path``, ``spec``). The shared loaders' names (mmlu,
    strategyqa, bbh, gsm8k, gpqa, hotpotqa) are taken.
    """


@hookspec
def register_event_types(register: Callable[[type], object]) -> None:
    """Contribute a protocol's own event types: call ``register(MyEvent)`` once per event class.

    Each class subclasses ``debate_core.events.EventBase`` (or ``ReplyBase``)
    and declares ``type: Literal["my_event"] = "my_event"`` (lower-case letters,
    digits and ``_``). It is then serialised, stored, imported and replayed like
    a built-in event (``debate_core.events.registry``). A type taken by a
    built-in or another plugin is left out and recorded. Every ``EventFold``
    must handle it, or take plugin events through its explicit default.
    """


@hookspec
def register_terminal_renderers(register: Callable[[object], object]) -> None:
    """Contribute a protocol's terminal rendering: call ``register(console.terminal.TerminalRendering(...))``.

    A ``TerminalRendering`` maps event types to functions ``(renderer, event)``
    that print the event through ``renderer.console`` (``renderer.colour``,
    ``renderer.note`` and ``renderer.prefix`` help). Put them in the protocol's
    ``terminal.py`` and import it inside the hook: the engine never imports it.
    An event type nobody renders is shown by a generic, readable line.
    """


@hookspec
def register_web_renderers(register: Callable[[object], object]) -> None:
    """Contribute what the web app draws for a protocol: call ``register(ui.web_plugins.WebRenderers(...))``.

    A ``WebRenderers`` names the ``protocols`` whose debates it draws and holds
    their side ``panels`` (``Panel(name, title, render(view) -> html)``, drawn
    in the live view and the replay alike), transcript ``lines`` by event type
    (``render(view, line) -> html``), ``folds`` of the protocol's own events into
    the view by event type (``fold(view, event)``), the question card's
    ``condition`` and the seat form's ``wordings`` of request kinds. What no
    renderer draws is drawn generically. Import the ``web`` module inside the
    hook: the engine never imports it.
    """


@hookspec
def register_live_controls(register: Callable[[object], object]) -> None:
    """Contribute a set of live controls for a seated person: call ``register(ui.web_plugins.LiveControls(...))``.

    A ``LiveControls`` is named as ``Protocol.controls_for`` names it and
    declares its buttons (``Press``: label, element id, key, what it sets on
    the person's stance, the seat state it shows), whether it shows the
    answer, an urgency slider or a text box, the seat states it follows
    (``follow``) and how it words them (``note``); one generic widget draws it,
    and every button goes through the page's owner-token check. A name or a
    button name already taken is left out and recorded.
    """


@hookspec
def register_study_kinds(register: Callable[[object], object]) -> None:
    """Contribute a kind of study the harness shows: call ``register(experiments.extensions.StudyKind(...))``.

    A ``StudyKind`` has a ``name``, ``handles(record)`` (whether an experiment
    record is one of its studies), ``view(store, record, step)`` returning a
    ``StudyView`` (markdown, plotly figures, one row per debate) for the web
    app's Analysis tab, and ``write(store, record, folder, options)`` writing
    its report folder for ``python -m experiments report`` and the tab's
    download (a ``WrittenReport``: what it wrote, warnings). The first kind
    that handles a record shows it; the harness's own (a comparison, ``compare``)
    comes first. Import the study code inside the hook: the engine never imports it.
    """


@hookspec
def register_study_preparations(register: Callable[[object], object]) -> None:
    """Contribute a step before a comparison's debates: call ``register(experiments.extensions.StudyPreparation(...))``.

    A ``StudyPreparation`` is named after its protocol; ``compare`` calls its
    ``prepare(request)`` when the study runs one of that protocol's systems,
    and lays the ``QuestionSetup`` it returns per question (parameters, briefs
    by role) over those systems' debates. ``add_options(parser)`` adds its
    options to ``compare``. Import the study code inside the hook: the engine
    never imports it.
    """
