"""Browser tests: the app in a subprocess on a free localhost port, driven by Playwright in Debian's chromium.

Never downloads a browser: Playwright launches ``/usr/bin/chromium`` (installed
by ``make test``'s set-up) headless, with the flags that keep it off the network.
Screenshots of each view are saved under ``artifacts/screenshots/``.
"""

from __future__ import annotations

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


@pytest.fixture(scope="session")
def app_db(tmp_path_factory) -> Path:
    """The app's database: a small scripted study (Analysis tab), then one finished demo debate (Replay)."""
    from debate_core import Debate
    from debate_core.protocols.kimura.demo import demo_backend, demo_config
    from experiments.runner import StudyRunner
    from storage import Store
    from tests.experiments.test_runner import backend_for, questions, spec

    path = tmp_path_factory.mktemp("app") / "debates.sqlite3"
    store = Store(path)
    toy = questions(6)
    StudyRunner(spec(experiment_id="browser-study", questions=2), store, backend_for(toy), questions=toy).run()
    config = demo_config(seed=1, token_budget=200)
    for _ in store.record(Debate(config, demo_backend(config)).events()):
        pass
    store.close()
    return path


@pytest.fixture(scope="session")
def app_url(app_db) -> Iterator[str]:
    port = free_port()
    env = {**os.environ, "GRADIO_ANALYTICS_ENABLED": "False", "HF_HUB_OFFLINE": "1"}
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "app.py"), "--db", str(app_db), "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
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
            output = process.stdout.read() if process.stdout else ""
            process.kill()
            raise RuntimeError(f"the app did not start:\n{output}")
        time.sleep(0.5)
    yield url
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        raise RuntimeError(f"{CHROMIUM} is missing: `make test` installs Debian's chromium")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser, app_url):
    context = browser.new_context(viewport={"width": 1400, "height": 1600})
    tab = context.new_page()
    tab.goto(app_url)
    tab.wait_for_selector("#start", timeout=30_000)
    yield tab
    context.close()


def screenshot(page, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
