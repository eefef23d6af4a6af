"""Browser tests: the app in a subprocess on a free localhost port, driven by Playwright in Debian's chromium.

Never downloads a browser: Playwright launches ``/usr/bin/chromium`` (installed
by ``make test``'s set-up) headless, with the flags that keep it off the network.
Screenshots of each view are saved under ``artifacts/screenshots/``.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "artifacts" / "screenshots"
LOG = ROOT / "artifacts" / "browser-app.log"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# How long one Playwright action or read waits for what it needs (an element drawn, a button enabled): Playwright's
# 30 s is short where the model lane shares a busy CI machine; what never comes still fails, later.
ACTION_TIMEOUT_MS = 120_000
ORPHAN_GRACE_S = 2  # the app stops a debate whose page has been gone this long


def compare_study(store) -> None:
    """A comparison of Parliament's four systems on two questions, scripted (the Analysis tab shows it)."""
    from debate_core.backends import factory
    from experiments.compare import CompareRunner, CompareSpec, Item
    from tests.conftest import QUESTION

    def demo(config):
        return factory.make_backend(factory.BackendSpec("scripted"), config)

    spec = CompareSpec(experiment_id="browser-compare", mmlu=2, strategyqa=0)
    items = [
        Item("mmlu", f"mmlu:{i}", "toy", QUESTION.model_copy(update={"text": f"{QUESTION.text} ({i})"})) for i in (1, 2)
    ]
    CompareRunner(spec, store, demo(spec.config(items[0], spec.systems[0])), items, per_debate=demo).run()


@pytest.fixture(scope="session")
def app_db(tmp_path_factory) -> Path:
    """The app's database: a scripted study (Analysis tab), a finished demo debate and a two-turn one (Replay)."""
    from debate_core import Debate
    from protocols.kimura.demo import demo_backend, demo_config
    from protocols.kimura.study.runner import StudyRunner
    from protocols.kimura.tests.test_runner import backend_for, questions, spec
    from storage import Store

    path = tmp_path_factory.mktemp("app") / "debates.sqlite3"
    store = Store(path)
    compare_study(store)  # first: the newest experiment (the Kimura study below) is the one shown by default
    toy = questions(6)
    StudyRunner(spec(experiment_id="browser-study", questions=2), store, backend_for(toy), questions=toy).run()
    config = demo_config(seed=1, token_budget=200)
    for _ in store.record(Debate(config, demo_backend(config)).events()):
        pass
    short = demo_config(seed=2, max_turns=2, question=demo_config().question.model_copy(update={"text": "Short one?"}))
    for _ in store.record(Debate(short, demo_backend(short)).events()):
        pass
    store.close()
    return path


@contextlib.contextmanager
def running_app(db: Path, log_path: Path) -> Iterator[str]:
    """``app.py`` on a free port with ``db``, its output in ``log_path`` named for this pytest process
    (``browser-app-PID.log``: ``make test`` runs two pytest processes side by side, each with its own app);
    yields its address."""
    port = free_port()
    env = {
        **os.environ,
        "GRADIO_ANALYTICS_ENABLED": "False",
        "HF_HUB_OFFLINE": "1",
        "DEBATE_ORPHAN_GRACE_S": str(ORPHAN_GRACE_S),
        # every debate started and stopped, and every page gone, in the app's log (debug: more)
        "DEBATE_LOG_LEVEL": os.environ.get("DEBATE_LOG_LEVEL", "info"),
        "DEBATE_STUDY_CACHE": str(db.parent / "study-cache"),  # committed studies, decompressed for this app
    }
    # The app's output goes to a file (a pipe nobody reads would fill up and block the app).
    log_path = log_path.with_name(f"{log_path.stem}-{os.getpid()}{log_path.suffix}")
    log_path.parent.mkdir(parents=True, exist_ok=True)
    log = log_path.open("w", encoding="utf-8")
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "app.py"), "--db", str(db), "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        text=True,
    )
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 90
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    break
        except OSError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise RuntimeError(f"the app did not start:\n{log_path.read_text(encoding='utf-8')[-4000:]}")
        time.sleep(0.5)
    try:
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


@pytest.fixture(scope="session")
def app_url(app_db) -> Iterator[str]:
    with running_app(app_db, LOG) as url:
        yield url


@pytest.fixture
def fresh_app_url(tmp_path) -> Iterator[str]:
    """An app of its own, with nothing loaded yet (for what happens on a model's first use)."""
    with running_app(tmp_path / "fresh.sqlite3", LOG.with_name("browser-fresh-app.log")) as url:
        yield url


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        raise RuntimeError(f"{CHROMIUM} is missing: `make test` installs Debian's chromium")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


def open_page(browser, url: str, *, width: int = 1400, height: int = 1600, dark: bool = False, ready: str = "#start"):
    """A fresh browser context (its own Gradio session) on ``url``, loaded (``ready`` is shown)."""
    context = browser.new_context(viewport={"width": width, "height": height}, color_scheme="dark" if dark else "light")
    context.set_default_timeout(ACTION_TIMEOUT_MS)
    tab = context.new_page()
    tab.goto(url)
    tab.wait_for_selector(ready, timeout=60_000)
    return tab


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Keep each phase's report on the test, so the ``page`` fixture knows whether its test failed."""
    outcome = yield
    setattr(item, f"report_{call.when}", outcome.get_result())


@pytest.fixture
def page(request, browser, app_url):
    tab = open_page(browser, app_url)
    yield tab
    report = getattr(request.node, "report_call", None)
    if report is not None and report.failed:
        screenshot(tab, f"failed-{request.node.name}")  # what the page showed when the test failed
    # leave no debate running for the tests that follow (in one step: the debate may end meanwhile)
    tab.evaluate("document.querySelector('#stop:not([disabled])')?.click()")
    tab.context.close()


def screenshot(page, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
