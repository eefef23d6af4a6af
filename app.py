"""The web app: watch debates live, take a seat and interrupt, replay stored debates, analyse studies.

Run ``python app.py`` (``make run`` does, after installing) and open the
address it prints. Every debate is recorded in the store (``--db``, default:
the data directory's SQLite file). The scripted demo needs no model; the
embedded SmolLM2-135M runs on any CPU offline; any Hugging Face model id or
local path works where it is available. ``--host-password`` (or
``$DEBATE_HOST_PASSWORD``) lets only who knows it start a debate; a class joins
with the join link or code the host's page shows (docs/classroom.md).

What it does not do: anything the engine, the backend or the store do; this
file only assembles the panels in ``ui/`` and launches Gradio.
"""

from __future__ import annotations

import argparse
import logging
import os
from pathlib import Path
from typing import Any

import gradio as gr

from storage import Store
from ui import cheap_skips
from ui.analysis_panel import build_analysis
from ui.classroom import HOST_PASSWORD_ENV, HostGate, resolve_host_password
from ui.debate_buttons import build_buttons
from ui.live_panel import build_live
from ui.page_scripts import KEEP_ZOOM_JS, page_js
from ui.replay_panel import build_replay
from ui.session import DEFAULT_GRACE_S
from ui.setup_panel import build_setup
from ui.studies import StudyLibrary

ASSETS = Path(__file__).resolve().parent / "assets"
TITLE = "Interruptible multi-agent debate"
# Every page watching a live debate is one running event (its live stream) for as long as it watches, and
# Gradio runs at most ``max_threads`` events at once (40 by default): a classroom of 40 would leave the
# teacher's Pause, and every newcomer's page, queued. A stream holds no thread while it waits
# (``ui.live_stream``), so the bound can be high; the short handlers still run in at most this many threads.
MAX_EVENTS = 400
LOG_LEVELS = ("debug", "info", "warning", "error")


def build_app(store: Store, *, grace_s: float = DEFAULT_GRACE_S, host_password: str | None = None) -> gr.Blocks:
    """The page; ``grace_s``: how long a debate whose page is gone runs on, waiting for the page to come back
    (and how long a seated person who left keeps their seat); ``host_password``: only who types it may start a
    debate (None: anyone may; joining never needs it)."""
    gate = HostGate(host_password)
    cheap_skips.install()  # an output left alone costs nothing (every live page skips most of its outputs)
    library = StudyLibrary(store)  # the app's store and the studies committed under docs/studies (read-only)
    with gr.Blocks(title=TITLE) as app:
        gr.Markdown(
            f"# {TITLE}\nAgents plan every turn; the most urgent speaks; sentences are disclosed one "
            "per turn, and anyone can interrupt. Take a seat to join in.",
            elem_id="intro",
        )
        with gr.Tabs(elem_id="tabs") as tabs:
            with gr.Tab("Live", id="live", elem_id="tab-live"):
                buttons = build_buttons(password=gate.required)  # above the set-up: in view on a first visit
                with gr.Accordion("Set up a debate", open=True, elem_id="setup") as setup_box:
                    form = build_setup()
                live = build_live(form, setup_box, store, buttons, grace_s=grace_s, gate=gate)
            with gr.Tab("Replay", id="replay", elem_id="tab-replay"):
                replay = build_replay(store, library)
            with gr.Tab("Analysis", id="analysis", elem_id="tab-analysis") as analysis:
                studies = build_analysis(store, library)
        analysis.select(studies.refresh, inputs=[studies.choice, studies.source], outputs=studies.choice)
        # the Analysis tab's source (the app's store or a committed study) opened in the Replay tab
        studies.replay.click(
            lambda where: (gr.Tabs(selected="replay"), where), inputs=studies.source, outputs=[tabs, replay.source]
        )
        app.load(studies.load, outputs=studies.load_outputs)
        app.load(live.reattach, inputs=live.reattach_inputs, outputs=live.reattach_outputs)
        app.load(replay.open_link, outputs=[tabs, *replay.link_outputs])
    return app


def launch_options() -> dict[str, Any]:
    """Theme, CSS and the page's script for ``launch`` (Gradio 6 takes them there, not in Blocks)."""
    script = f"() => {{ ({page_js()})(); ({KEEP_ZOOM_JS})(); }}"
    return {"theme": gr.themes.Soft(), "css_paths": [ASSETS / "style.css"], "js": script}


def address(host: str | None, port: int | None) -> tuple[str, int]:
    """The address to serve on: the flags, else Gradio's own variables, else 127.0.0.1:7860."""
    host = host or os.environ.get("GRADIO_SERVER_NAME") or "127.0.0.1"
    if port is None:
        value = os.environ.get("GRADIO_SERVER_PORT", "7860")
        try:
            port = int(value)
        except ValueError:
            raise SystemExit(f"GRADIO_SERVER_PORT must be a port number, got {value!r}") from None
    return host, port


def options(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line, read: ``host_password`` resolved (the flag, else ``$DEBATE_HOST_PASSWORD``, else None)."""
    parser = argparse.ArgumentParser(description=TITLE)
    parser.add_argument("--db", help="SQLite file or SQLAlchemy URL (default: the data directory)")
    parser.add_argument("--host", help="default: $GRADIO_SERVER_NAME, else 127.0.0.1")
    parser.add_argument("--port", type=int, help="default: $GRADIO_SERVER_PORT, else 7860")
    parser.add_argument(
        "--orphan-grace",
        type=float,
        default=float(os.environ.get("DEBATE_ORPHAN_GRACE_S", DEFAULT_GRACE_S)),
        metavar="SECONDS",
        help="stop a debate whose page has been gone this long (default: $DEBATE_ORPHAN_GRACE_S, else 60)",
    )
    parser.add_argument(
        "--host-password",
        metavar="TEXT",
        help=f"only who types it may start a debate; joining needs none (default: ${HOST_PASSWORD_ENV}, preferred: "
        "a command line is visible to every user of the machine)",
    )
    parser.add_argument(
        "--log-level",
        default=os.environ.get("DEBATE_LOG_LEVEL", "warning"),
        type=str.lower,
        choices=LOG_LEVELS,
        help="what the app logs to standard error; info: every debate started, stopped as orphaned, and every page "
        "that went away (default: $DEBATE_LOG_LEVEL, else warning)",
    )
    args = parser.parse_args(argv)
    args.host_password = resolve_host_password(args.host_password)
    return args


def main(argv: list[str] | None = None) -> None:
    args = options(argv)
    # the app's own logger (``debate_core.log``: the engine and ui/ log through it) at the level asked for; the
    # libraries' at warning
    logging.basicConfig(format="%(asctime)s %(levelname)s %(name)s: %(message)s", level=logging.WARNING)
    logging.getLogger("debate_core").setLevel(args.log_level.upper())
    host, port = address(args.host, args.port)
    store = Store(args.db)
    app = build_app(store, grace_s=max(0.0, args.orphan_grace), host_password=args.host_password)
    app.queue(default_concurrency_limit=8).launch(
        server_name=host, server_port=port, show_error=True, max_threads=MAX_EVENTS, **launch_options()
    )


if __name__ == "__main__":
    main()
