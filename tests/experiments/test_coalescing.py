"""Cross-debate batching: concurrent debates share backend calls and get their own answers back."""

from __future__ import annotations

import threading

from debate_core import Debate, ScriptedBackend
from debate_core.backends.coalescing import CoalescingBackend
from debate_core.errors import BackendError
from protocols.kimura.demo import DemoScript, demo_config


class Router:
    """One demo script per debate, chosen by the request's cache key (debate id)."""

    def __init__(self) -> None:
        self.scripts: dict[str, DemoScript] = {}

    def __call__(self, request):
        if request.cache_key is None:  # initial answers: the demo gives the same ones in every debate
            return next(iter(self.scripts.values())).reply(request)
        return self.scripts[request.cache_key.split("/")[0]].reply(request)


def test_four_concurrent_debates_share_batches_and_match_running_alone():
    configs = [demo_config(seed=seed, token_budget=200) for seed in range(4)]
    alone = []
    for config in configs:
        script = DemoScript(config)
        alone.append(Debate(config, ScriptedBackend(script.reply), debate_id=f"d{config.seed}").run())

    router = Router()
    inner = ScriptedBackend(router)
    shared = CoalescingBackend(inner, parties=4, window_s=1.0)
    results: dict[int, list] = {}

    def run(config):
        try:
            results[config.seed] = Debate(config, shared, debate_id=f"d{config.seed}").run()
        finally:
            shared.leave()

    for config in configs:
        router.scripts[f"d{config.seed}"] = DemoScript(config)
    threads = [threading.Thread(target=run, args=(config,)) for config in configs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    for seed, events in enumerate(alone):
        together = results[seed]
        strip = lambda evs: [(e.type, e.turn, e.public_tokens, getattr(e, "text", None)) for e in evs]  # noqa: E731
        assert strip(together) == strip(events)
    assert max(shared.batch_sizes) > 3  # requests of several debates went out together
    assert len(shared.batch_sizes) < len(inner.batches) + 1
    assert sum(shared.batch_sizes) == len(inner.requests)


def test_an_error_reaches_every_caller_of_the_batch():
    shared = CoalescingBackend(ScriptedBackend([]), parties=2, window_s=1.0)
    config = demo_config(seed=0)
    errors = []

    def run():
        try:
            Debate(config, shared).run()
        except BackendError as error:
            errors.append(error)
        finally:
            shared.leave()

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert len(errors) == 2
