"""From the engine's disclosure to the sentence on the page: how long a viewer waits.

Starts the web app (this checkout, or another with ``--app``) on a free
port with an empty store, opens it in Debian's chromium (Playwright, never a
downloaded browser), starts a scripted debate, and records in the page, with
a ``MutationObserver``, the moment each disclosed sentence first appears in
the transcript. Each ``UnitDisclosed`` event carries the engine's wall-clock
time (``at``); the store gives them back after the debate. Prints the
median, p95 and maximum latency over every disclosed sentence, and how many
were matched.

    python bench/ui_latency.py                       # this checkout
    python bench/ui_latency.py --app /tmp/ui-before  # another checkout (e.g. the polling UI, 64384f6)

Both run the same scripted debate (pace 0.6 s per sentence, budget 300).
The app is started as bench/classroom.py starts it (bench/app_process.py).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

# the repository's packages before bench/'s modules (bench/storage.py is not storage); bench/ is a package then
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.app_process import free_port, start_app

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
# Records, in the page, when the k-th copy of each sentence text first shows in the transcript.
OBSERVER_JS = """
window.__seen = {};
window.__firstAt = [];
const look = () => {
  const box = document.getElementById('transcript');
  if (!box) return;
  const counts = {};
  for (const node of box.querySelectorAll('.sentence')) {
    const text = node.textContent.trim();
    counts[text] = (counts[text] || 0) + 1;
    const key = text + '\\u0000' + counts[text];
    if (!(key in window.__seen)) {
      window.__seen[key] = true;
      window.__firstAt.push([text, counts[text], performance.timeOrigin + performance.now()]);
    }
  }
};
new MutationObserver(look).observe(document, {subtree: true, childList: true, characterData: true});
"""


def drive(port: int, pace: float, budget: int) -> list[tuple[str, int, float]]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--headless=new", "--no-sandbox"])
        page = browser.new_page(viewport={"width": 1400, "height": 1400})
        page.add_init_script(OBSERVER_JS)
        page.goto(f"http://127.0.0.1:{port}/")
        page.wait_for_selector("#start", timeout=60_000)
        page.locator("#backend-choice input").click()
        page.get_by_role("option", name="scripted demo", exact=False).first.click()
        page.get_by_text("More settings").click()
        for elem_id, value in (("pace", pace), ("budget-setting", budget)):
            box = page.locator(f"#{elem_id} input[type=number]")
            box.fill(str(value))
            box.press("Enter")
        time.sleep(0.5)
        page.click("#start")
        page.wait_for_selector("#result .final", timeout=600_000)
        time.sleep(1.0)
        seen = page.evaluate("window.__firstAt")
        browser.close()
    return [(text, int(k), float(ms) / 1000) for text, k, ms in seen]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--app", type=Path, default=ROOT, help="the checkout whose app.py to run")
    parser.add_argument("--pace", type=float, default=0.6)
    parser.add_argument("--budget", type=int, default=300)
    args = parser.parse_args()
    from debate_core.events import UnitDisclosed
    from storage import Store

    with tempfile.TemporaryDirectory() as scratch:
        db = Path(scratch) / "latency.sqlite3"
        port = free_port()
        process = start_app(args.app.resolve(), db, port, within_s=120)
        try:
            shown = drive(port, args.pace, args.budget)
        finally:
            process.terminate()
            process.wait(10)
        store = Store(db)
        [summary] = store.list_debates(limit=1)
        disclosed = [e for e in store.events(summary.id) if isinstance(e, UnitDisclosed)]
        store.close()
    first_seen = {(text, k): at for text, k, at in shown}
    copies: dict[str, int] = {}
    latencies = []
    for event in disclosed:
        copies[event.text] = copies.get(event.text, 0) + 1
        at = first_seen.get((event.text, copies[event.text]))
        if at is not None:
            latencies.append((at - event.at) * 1000)
    if not latencies:
        raise SystemExit("no disclosed sentence was seen in the page")
    latencies.sort()
    p95 = latencies[min(len(latencies) - 1, round(0.95 * (len(latencies) - 1)))]
    print(
        f"{args.app.resolve()}: {len(latencies)}/{len(disclosed)} sentences matched · "
        f"median {statistics.median(latencies):.0f} ms · p95 {p95:.0f} ms · max {latencies[-1]:.0f} ms"
    )


if __name__ == "__main__":
    main()
