"""ACE's terminal rendering: the observer's analyses and the debaters' composed acts.

What it does: ``RENDERING`` tells ``console.terminal.TerminalRenderer`` how to
print ACE's own events: an ``AnalysisMade`` as the analyst's verdict (stop or
go on, or its pick) with a few words per pair of debaters, and an
``ActionComposed`` as the acts chosen and the action composed. It is a
front-end module: only ``plugin``'s ``register_terminal_renderers`` hook
imports it, inside the hook.

What it does not do: analyse or compose anything (``loop``), or render the
built-in events.
"""

from __future__ import annotations

from rich.text import Text

from console.terminal import TerminalRenderer, TerminalRendering
from protocols.ace.events import ActionComposed, AnalysisMade


def analysis_made(renderer: TerminalRenderer, event: AnalysisMade) -> None:
    line = Text(f"    🔎 {event.analyst} (round {event.round}): ", style="bold")
    if "pick" in event.findings:
        picked = event.findings["pick"]
        line.append(f"picks {picked}" if picked is not None else "no usable pick", style="bold")
    else:
        line.append("stop" if event.stop else "go on", style="bold")
    for pair in event.findings.get("pairs", ()):
        if isinstance(pair, dict):
            line.append(f" · {_pair_summary(pair)}", style="dim")
    if event.reason:
        line.append(f" - {event.reason}")
    if not event.valid and event.error:
        line.append(f" [{event.error}]", style="red")
    renderer.console.print(line)


def action_composed(renderer: TerminalRenderer, event: ActionComposed) -> None:
    line = Text("      ")
    line.append(event.agent, style=renderer.colour(event.agent))
    line.append(f" {' + '.join(event.acts)}: ", style="bold")
    line.append(event.action_text, style="dim")
    renderer.console.print(line)


def _pair_summary(pair: dict[str, object]) -> str:
    """One pair's findings in a few words: agreement, similarity, matching and differing items."""
    agree = "agree" if pair.get("answers_agree") else "disagree"
    similar = "similar" if pair.get("explanations_similar") else "different"

    def pairs(key: str, sign: str) -> str:
        found = pair.get(key)
        return (
            ", ".join(f"{p[0]}{sign}{p[1]}" for p in found if isinstance(p, list) and len(p) == 2)
            if isinstance(found, list)
            else ""
        )

    parts = [f"{pair.get('first')} and {pair.get('second')} {agree}, explanations {similar}"]
    matched, differing = pairs("similar", "↔"), pairs("dissimilar", "≠")
    if matched:
        parts.append(f"match {matched}")
    if differing:
        parts.append(f"differ {differing}")
    return "; ".join(parts)


RENDERING = TerminalRendering(events={"analysis_made": analysis_made, "action_composed": action_composed})
