"""The web app under test, for the benches that measure it from outside: a free loopback port, the app started on it.

``start_app`` runs a checkout's ``app.py`` (this one or another, e.g. ``--app /tmp/before``) in a child process
with its own store and its own packages first on its path, Gradio's analytics off and the Hugging Face hub
offline, and returns once the app answers on its port (or gives up after ``within_s`` seconds). Used by
bench/classroom.py and bench/ui_latency.py.

It does not stop the app (the caller terminates the process it got back), drive a page, nor read the store.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path


def free_port() -> int:
    """A loopback port no one listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_app(app: Path, db: Path, port: int, *, within_s: float = 180) -> subprocess.Popen[str]:
    """The checkout ``app``'s web app on ``port`` with the store ``db``, once it answers; it is killed and the bench
    exits if it does not within ``within_s`` seconds."""
    env = {**os.environ, "GRADIO_ANALYTICS_ENABLED": "False", "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(app)}
    process = subprocess.Popen(
        [sys.executable, str(app / "app.py"), "--db", str(db), "--port", str(port)],
        cwd=app,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2):
                return process
        except OSError:
            time.sleep(0.5)
    process.kill()
    raise SystemExit("the app did not start")
