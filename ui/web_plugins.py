"""What protocols bring to the web app: their panels, transcript renderers, seat wordings and live controls.

What it does: declares the specs a protocol's ``web`` module registers
through two hooks, and collects them for the generic front end.

- ``register_web_renderers(register)``: ``register(WebRenderers(...))`` with
  the protocols it draws (``protocols``), its side panels (``Panel``: a name,
  a title and ``render(view) -> html``, drawn for a debate of those protocols,
  in the live view and the replay alike), its transcript lines by event type
  (``lines``: ``render(view, line) -> html`` for a line holding such an
  event, whatever the protocol), what the view keeps of its own events
  (``folds``: ``fold(view, event)``, by event type), how the question card names a debate's
  condition (``condition``) and draws its question (``question``: a task whose secret is the
  answer hides it from a seated guesser), wordings of request kinds for the seat form
  (``wordings``: ``Wording``) and the page's demo debate (``demo``).
- ``register_live_controls(register)``: ``register(LiveControls(...))``, a
  declarative live-control set named as ``Protocol.controls_for`` names it:
  its buttons (``Press``: label, key, the stance each sets and the seat state
  it shows), whether it shows the always-visible answer, an urgency slider or
  a text box, the seat states it follows through the events (``follow``) and
  how it words them (``note``). One generic widget (``live_panel``) draws
  every registered set; every button goes through ``page_access.guard``.

``web_renderers()``, ``panels()``, ``line_renderer()``, ``wordings()`` and
``live_controls()`` collect what the plugins registered (cached per plugin
manager, so ``registry.reload()`` finds them afresh). Something a front end
has no renderer for is drawn generically: ``generic_event_html`` (an event
as its type and its fields) and ``panel_html`` (a panel whose renderer
fails is shown as a readable note, and the plugin's mistake is recorded
with ``debate_core.plugins.record_problem``). A registration of the wrong
type, or a second live-control set or button of a name already taken, is
recorded and left out.

What it does not do: lay out Gradio components (``live_panel``,
``replay_panel``), fold events (``view_model``) or name any protocol: each
protocol's specs live in its own ``protocols/<name>/web.py``.
"""

from __future__ import annotations

import dataclasses
import enum
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from html import escape
from typing import TYPE_CHECKING, Any

from debate_core.plugins import collect, plugin_manager, record_problem

if TYPE_CHECKING:
    from debate_core.config import DebateConfig
    from debate_core.events import DebateStarted, Event
    from ui.view_model import DebateView, Line


@dataclass(frozen=True)
class Panel:
    """A side panel: ``render(view)`` gives its HTML ("" when there is nothing to show, so it stays blank).

    ``name`` is its element id on the live page (``replay-<name>`` in the replay); unique across plugins.
    """

    name: str
    title: str
    render: Callable[[DebateView], str]


@dataclass(frozen=True)
class Wording:
    """How the seat form words a request kind: a heading, a sentence on what the choice does, a label per value.

    ``rounded``: the heading says the request's round (``view.round``) when it has one.
    """

    heading: str
    sentence: str
    labels: Mapping[str, str] = field(default_factory=dict)
    rounded: bool = False


@dataclass(frozen=True)
class WebRenderers:
    """What one plugin draws in the web app (registered through ``register_web_renderers``)."""

    protocols: tuple[str, ...] = ()  # the protocols whose debates show ``panels`` and use ``condition``
    panels: tuple[Panel, ...] = ()
    lines: Mapping[str, Callable[[DebateView, Line], str]] = field(default_factory=dict)  # event type -> line
    folds: Mapping[str, Callable[[DebateView, Any], None]] = field(default_factory=dict)  # event type -> fold
    condition: Callable[[DebateStarted], str] | None = None  # the question card's condition (else the label)
    wordings: Mapping[str, Wording] = field(default_factory=dict)  # request kind -> its wording
    demo: Callable[..., DebateConfig] | None = None  # the page's Demo debate: ``demo(seed=N)``
    question: Callable[[DebateView], str | None] | None = None  # the question card's body (None: the generic one)


@dataclass(frozen=True)
class Press:
    """One live-control button: what it sets on the person's stance and the seat state it shows.

    ``stance``: the values set (``intent``, ``point``, ...); with ``urgency`` the urgency is set too: the
    slider's value where the set has one (bounded by the session), else the maximum; with ``text`` the text
    box's words are the ``point`` (checked, and refused with words when empty or too long).
    ``refusal``: the action as a refusal says it ("interrupt"). ``name`` is its API name, unique across plugins.
    """

    name: str
    label: str
    elem_id: str
    state: str
    stance: Mapping[str, Any]
    refusal: str
    key: str = ""
    urgency: bool = False
    text: bool = False
    variant: str = "secondary"
    scale: int | None = None
    min_width: int = 100


@dataclass(frozen=True)
class TextBox:
    """The live controls' text box (a point in one sentence): Enter presses ``enter``'s button."""

    label: str
    elem_id: str
    enter: str  # the name of the ``Press`` (with ``text``) that Enter triggers
    enter_api: str  # the API name of Enter
    key: str = ""  # the key that focuses the box
    message_id: str = ""


@dataclass(frozen=True)
class LiveControls:
    """A set of live controls, named as ``Protocol.controls_for`` names it ("floor", "point", ...).

    ``follow(state, person, event)``: the seat state after an event this set cares about and the stance the
    event spends, or None to leave the event to the generic follower (``seat_state.follow``).
    ``note(state, urgency)``: the sentence for a seat state, or None for the generic one.
    """

    name: str
    buttons: tuple[Press, ...]
    answer: bool = False  # the always-visible answer (``choose_answer``)
    urgency: bool = False  # the urgency slider, for buttons with ``urgency``
    text: TextBox | None = None
    follow: Callable[[str, str, Event], tuple[str, dict[str, Any] | None] | None] | None = None
    note: Callable[[str, int], str | None] | None = None


@dataclass(frozen=True)
class _Found:
    renderers: tuple[WebRenderers, ...]
    controls: tuple[LiveControls, ...]


_LOCK = threading.Lock()
_CACHE: dict[int, _Found] = {}


def _found() -> _Found:
    manager = plugin_manager()
    with _LOCK:
        cached = _CACHE.get(id(manager))
    if cached is not None:
        return cached
    renderers = tuple(_of_type(collect("register_web_renderers"), WebRenderers, "register_web_renderers"))
    controls: list[LiveControls] = []
    names: set[str] = set()
    buttons: set[str] = set()
    for spec, plugin in _of_type(collect("register_live_controls"), LiveControls, "register_live_controls", True):
        taken = [p.name for p in spec.buttons if p.name in buttons or p.name in FIXED_CONTROLS]
        if spec.name in names or taken:
            record_problem(
                f"plugin {plugin} registered live controls {spec.name!r} whose name or buttons {taken} are taken"
            )
            continue
        names.add(spec.name)
        buttons.update(p.name for p in spec.buttons)
        controls.append(spec)
    found = _Found(renderers, tuple(controls))
    with _LOCK:
        _CACHE.clear()
        _CACHE[id(manager)] = found
    return found


# The page's own controls (``live_panel.CONTROLS``): no plugin button may take these names.
FIXED_CONTROLS = frozenset({"pause", "resume", "step", "stop", "pace", "choose_answer", "submit_words"})


def _of_type(found: list[Any], kind: type, hook: str, with_plugin: bool = False) -> list[Any]:
    kept = []
    for registration in found:
        if isinstance(registration.item, kind):
            kept.append((registration.item, registration.plugin) if with_plugin else registration.item)
        else:
            record_problem(
                f"plugin {registration.plugin} ({registration.source}) registered "
                f"{type(registration.item).__name__} through {hook}, not a {kind.__name__}: left out"
            )
    return kept


def web_renderers() -> tuple[WebRenderers, ...]:
    """Every registered ``WebRenderers``, in plugin order (built-ins first)."""
    return _found().renderers


def panels() -> tuple[Panel, ...]:
    """Every registered side panel (the live page and the replay lay out one component per panel)."""
    seen: dict[str, Panel] = {}
    for renderers in web_renderers():
        for panel in renderers.panels:
            seen.setdefault(panel.name, panel)
    return tuple(seen.values())


def panel_html(view: DebateView) -> dict[str, str]:
    """Every registered panel's HTML for ``view``: drawn for a debate of its plugin's protocols, else ""."""
    drawn: dict[str, str] = {}
    for renderers in web_renderers():
        for panel in renderers.panels:
            if panel.name in drawn:
                continue
            drawn[panel.name] = _draw(panel, view) if view.protocol in renderers.protocols else ""
    return drawn


def _draw(panel: Panel, view: DebateView) -> str:
    try:
        return panel.render(view)
    except Exception as error:  # the plugin's mistake: recorded, and the panel says so instead of the page failing
        record_problem(f"web panel {panel.name!r} failed: {type(error).__name__}: {error}")
        return (
            f'<div class="panel generic"><div class="muted">{escape(panel.title)} cannot be drawn '
            f"({escape(type(error).__name__)}: {escape(str(error))}).</div></div>"
        )


def line_renderer(event_type: str) -> Callable[[DebateView, Line], str] | None:
    """The registered renderer of transcript lines holding an event of ``event_type``, if any."""
    for renderers in web_renderers():
        found = renderers.lines.get(event_type)
        if found is not None:
            return found
    return None


def fold_for(event_type: str) -> Callable[[DebateView, Any], None] | None:
    """The registered fold of events of ``event_type`` into the view (what the view keeps of them), if any."""
    for renderers in web_renderers():
        found = renderers.folds.get(event_type)
        if found is not None:
            return found
    return None


def condition_of(event: DebateStarted) -> str:
    """The question card's condition for a debate: its protocol's ``condition``, else the config's label."""
    for renderers in web_renderers():
        if renderers.condition is not None and event.config.protocol in renderers.protocols:
            return renderers.condition(event)
    return event.config.label


def question_body(view: DebateView) -> str | None:
    """The question card's body as the debate's protocol draws it (its ``question``), None for the generic one."""
    for renderers in web_renderers():
        if renderers.question is not None and view.protocol in renderers.protocols:
            return renderers.question(view)
    return None


def demo_config(seed: int = 0) -> DebateConfig:
    """The page's demo debate: the first registered ``demo`` (built-ins first)."""
    for renderers in web_renderers():
        if renderers.demo is not None:
            return renderers.demo(seed=seed)
    raise LookupError("no plugin offers a demo debate (WebRenderers.demo)")


def wordings() -> dict[str, list[Wording]]:
    """Every registered wording, by request kind (several plugins may word a kind of the same name)."""
    found: dict[str, list[Wording]] = {}
    for renderers in web_renderers():
        for kind, wording in renderers.wordings.items():
            found.setdefault(kind, []).append(wording)
    return found


def live_controls() -> tuple[LiveControls, ...]:
    """Every registered live-control set (names and button names unique)."""
    return _found().controls


def controls_named(name: str) -> LiveControls | None:
    """The live-control set ``name`` ("none", or a name nobody registered: None, words only)."""
    return next((spec for spec in live_controls() if spec.name == name), None)


def press_named(name: str) -> Press | None:
    """The registered button ``name``."""
    return next((p for spec in live_controls() for p in spec.buttons if p.name == name), None)


def _value(value: Any) -> str:
    if isinstance(value, enum.Enum):
        return str(value.value)
    names = _field_names(value)
    if names:
        return "(" + ", ".join(f"{name}={_value(getattr(value, name))}" for name in names) + ")"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_value(v)}" for k, v in value.items()) + "}"
    return str(value)


def _field_names(value: Any) -> list[str]:
    """The fields of a pydantic model or a dataclass instance (none for anything else)."""
    model_fields = getattr(type(value), "model_fields", None)
    if isinstance(model_fields, dict):
        return list(model_fields)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [f.name for f in dataclasses.fields(value)]
    return []


# An event's fields every event has (its place in the stream): not repeated in its generic line.
_COMMON = frozenset({"type", "turn", "public_tokens", "seq", "at"})


def generic_event_html(view: DebateView, line: Line) -> str:
    """A transcript line for an event no renderer draws: its type, then each field and value, all escaped."""
    event = line.event
    assert event is not None, "a generic line holds an event"
    items = "".join(
        f'<li><span class="field">{escape(name)}</span> {escape(_value(getattr(event, name)))}</li>'
        for name in _field_names(event)
        if name not in _COMMON
    )
    label = escape(str(getattr(event, "type", type(event).__name__)).replace("_", " "))
    return (
        f'<div class="line event generic" data-turn="{line.turn}" data-event="{escape(str(event.type))}">'
        f'<span class="badge">{label}</span><ul class="fields">{items}</ul></div>'
    )
