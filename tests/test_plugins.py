"""The plugin manager: built-ins, installed packages and DEBATE_PLUGINS all register protocols through one path.

A plugin is a module with ``@hookimpl`` functions (``tests/fixtures/plugins``); the five built-in
protocols are plugins too, found without installed metadata, and each protocol knows where it came from.
"""

from __future__ import annotations

import io
import json
import logging
import os
import re
import subprocess
import sys
import threading
import warnings
from importlib.metadata import EntryPoint
from pathlib import Path
from types import SimpleNamespace

import pytest
from rich.console import Console

from console.listing import show_protocols
from debate_core import AgentSpec, Debate, DebateConfig, ScriptedBackend
from debate_core.errors import ConfigError
from debate_core.events import DebateEnded, EndReason, UnitDisclosed
from debate_core.plugins import manager, plugin_manager, plugins, problems
from debate_core.protocols import describe, registry
from protocols import PLUGINS
from protocols.kimura import KimuraProtocol
from protocols.parliament import ParliamentProtocol
from tests.conftest import QUESTION, of_type
from tests.fixtures.plugins.rounds import PluginDuel, PluginRounds

ROOT = Path(__file__).resolve().parent.parent
BUILT_INS = {"kimura", "parliament", "handraiser", "ace", "sid", "baselines"}
FIXTURES = "tests.fixtures.plugins"


@pytest.fixture(autouse=True)
def fresh_plugins(monkeypatch):
    """Every test finds the plugins afresh, and leaves the process's usual set behind it."""
    monkeypatch.delenv("DEBATE_PLUGINS", raising=False)
    registry.reload()
    yield
    registry.reload()  # found again on the next lookup, after monkeypatch has restored the environment


def use_plugins(monkeypatch, *modules: str) -> None:
    monkeypatch.setenv("DEBATE_PLUGINS", ", ".join(f"{FIXTURES}.{m}" for m in modules))
    registry.reload()


def test_the_five_built_ins_come_through_the_manager_as_built_in():
    info = {i.name: i for i in describe()}
    assert set(info) >= BUILT_INS
    for name in BUILT_INS:
        assert (info[name].source, info[name].plugin) == ("built-in", f"protocols.{name}.plugin")
        assert registry.source_of(name) == "built-in"
    assert info["kimura"].paper.startswith("Interruptible Multi-Agent Debate")
    assert [(p.name, p.source) for p in plugins()] == [(m, "built-in") for m in PLUGINS]


def test_a_plugin_named_in_debate_plugins_registers_its_protocols_and_one_runs(monkeypatch):
    use_plugins(monkeypatch, "rounds")
    assert registry.protocol_class("plugin-rounds") is PluginRounds
    assert registry.protocol_class("plugin-duel") is PluginDuel  # one hook, several protocols
    assert registry.source_of("plugin-rounds") == "DEBATE_PLUGINS"
    assert set(registry.available()) >= BUILT_INS

    verdicts = iter(range(1, 100))

    def respond(request):
        if request.kind == "statement":
            return f"{request.agent} says B."
        return json.dumps({"answer": "B", "final": next(verdicts) >= 2})

    agents = (AgentSpec(name="Ann"), AgentSpec(name="Ben"), AgentSpec(name="Cy", role="judge"))
    config = DebateConfig(question=QUESTION, agents=agents, protocol="plugin-rounds")
    events = Debate(config, ScriptedBackend(respond)).run()
    assert events[0].config.protocol == "plugin-rounds"
    assert [e.speaker for e in of_type(events, UnitDisclosed)] == ["Ann", "Ben", "Ann", "Ben"]
    end = events[-1]
    assert isinstance(end, DebateEnded)
    assert (end.reason, end.final_answer, end.decided_by) == (EndReason.VERDICT, "B", "Cy")


def test_the_listing_says_where_each_protocol_came_from(monkeypatch):
    use_plugins(monkeypatch, "rounds")
    out = io.StringIO()
    show_protocols(Console(file=out, width=200))
    text = out.getvalue()
    kimura = text[text.index("kimura:") :]
    assert kimura.splitlines()[1].strip() == "from: built-in"
    rounds = text[text.index("plugin-rounds:") :]
    assert rounds.splitlines()[1].strip() == f"from: DEBATE_PLUGINS (plugin {FIXTURES}.rounds)"


def test_a_broken_plugin_warns_and_the_others_still_load(monkeypatch, caplog):
    use_plugins(monkeypatch, "broken", "no_such_module", "failing_hook", "misnamed", "rounds")
    with caplog.at_level(logging.WARNING, logger="debate_core"):
        found = registry.available()
    assert set(found) >= BUILT_INS
    assert "plugin-rounds" in found  # loaded after the broken ones
    assert "half-registered" not in found  # its hook failed: nothing it registered is kept
    warned = "\n".join(r.getMessage() for r in caplog.records if r.levelno == logging.WARNING)
    assert f"plugin {FIXTURES}.broken (DEBATE_PLUGINS) could not be loaded: ImportError: this plugin needs" in warned
    assert f"plugin {FIXTURES}.no_such_module (DEBATE_PLUGINS) could not be loaded: ModuleNotFoundError" in warned
    assert f"plugin {FIXTURES}.failing_hook (DEBATE_PLUGINS) failed in register_protocols: RuntimeError" in warned
    assert f"plugin {FIXTURES}.misnamed (DEBATE_PLUGINS) implements unknown hooks ['register_protocol']" in warned
    assert re.search(r"known: [a-z_, ]*register_protocols", warned)  # the hooks it could have meant
    assert len(problems()) == 4 and all(p in warned for p in problems())


def test_the_listing_shows_plugin_problems_and_a_name_conflict(monkeypatch):
    use_plugins(monkeypatch, "broken", "rounds")
    out = io.StringIO()
    show_protocols(Console(file=out, width=400))
    first = out.getvalue().splitlines()[0]
    assert first.startswith(f"warning: plugin {FIXTURES}.broken (DEBATE_PLUGINS) could not be loaded: ImportError")
    use_plugins(monkeypatch, "rounds", "rival")
    out = io.StringIO()
    show_protocols(Console(file=out, width=400))
    assert "warning: protocol name 'plugin-rounds' is registered twice" in out.getvalue()
    assert "kimura:" in out.getvalue() and "plugin-rounds:" in out.getvalue()


def test_two_plugins_registering_one_name_keep_the_first_and_say_so(monkeypatch):
    use_plugins(monkeypatch, "rounds", "rival")
    message = (
        "protocol name 'plugin-rounds' is registered twice: by plugin tests.fixtures.plugins.rounds (DEBATE_PLUGINS)"
        " and by plugin tests.fixtures.plugins.rival (DEBATE_PLUGINS); the first is kept, the second left out"
    )
    first = registry.available()["plugin-rounds"]
    assert first.__module__ == "tests.fixtures.plugins.rounds"
    assert any(p.startswith(message) for p in problems())
    assert registry.protocol_class("kimura") is KimuraProtocol  # the built-ins are untouched


def test_a_run_time_register_cannot_take_a_plugins_name():
    class Impostor(KimuraProtocol):
        pass

    with pytest.raises(ConfigError, match=r"already registered as 'kimura' \(by plugin protocols\.kimura"):
        registry.register(Impostor)
    assert registry.protocol_class("kimura") is KimuraProtocol


def test_an_installed_package_registers_its_plugin_module_by_entry_point(monkeypatch):
    real = manager.importlib.metadata.entry_points
    entry = SimpleNamespace(
        name="rounds",
        dist=SimpleNamespace(name="debate-rounds", version="1.2.0"),
        load=lambda: __import__(f"{FIXTURES}.rounds", fromlist=["_"]),
    )
    fake = lambda group: [entry] if group == manager.ENTRY_POINT_GROUP else real(group=group)  # noqa: E731
    monkeypatch.setattr(manager.importlib.metadata, "entry_points", fake)
    registry.reload()
    assert registry.protocol_class("plugin-rounds") is PluginRounds
    assert registry.source_of("plugin-rounds") == "entry point debate-rounds 1.2.0"
    assert registry.source_of("kimura") == "built-in"


def test_the_old_entry_point_group_still_works_with_a_deprecation_warning(monkeypatch):
    group = registry.LEGACY_ENTRY_POINT_GROUP
    stale = EntryPoint("parliament", "protocols.parliament:ParliamentProtocol", group)
    outside = EntryPoint("plugin-rounds", f"{FIXTURES}.rounds:PluginRounds", group)
    monkeypatch.setattr(registry, "entry_points", lambda group: [stale, outside])
    registry.reload()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        found = registry.available()
    assert found["plugin-rounds"] is PluginRounds and found["parliament"] is ParliamentProtocol
    deprecations = [str(w.message) for w in caught if issubclass(w.category, DeprecationWarning)]
    assert len(deprecations) == 1  # the built-in named by stale metadata is skipped quietly
    assert "'interruptible_debate.protocols' is deprecated" in deprecations[0] and "PluginRounds" in deprecations[0]
    assert registry.source_of("parliament") == "built-in"
    assert registry.source_of("plugin-rounds").endswith("(interruptible_debate.protocols, deprecated)")


def test_a_plain_checkout_without_installed_metadata_sees_every_built_in(tmp_path):
    code = (
        "import importlib.metadata as md, json;"
        "md.entry_points = lambda **kw: md.EntryPoints(());"
        "md.distributions = lambda **kw: iter(());"
        "import debate_core;"
        "from debate_core.protocols import registry;"
        "print(json.dumps({'file': debate_core.__file__,"
        " 'sources': {n: registry.source_of(n) for n in registry.available()}}))"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("DEBATE_PLUGINS", "PYTHONPATH")}
    env["PYTHONPATH"] = str(ROOT)
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300
    )
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout.strip().splitlines()[-1])
    assert Path(found["file"]).resolve().is_relative_to(ROOT)
    # pictionary and scheduling are HandRaiser's tasks, protocols of its plugin (protocols/handraiser/)
    assert found["sources"] == dict.fromkeys(sorted(BUILT_INS | {"pictionary", "scheduling"}), "built-in")


def test_the_manager_is_built_once_when_many_threads_ask_at_once(monkeypatch):
    use_plugins(monkeypatch, "rounds")
    barrier = threading.Barrier(8)
    seen: list[tuple[object, dict]] = []

    def ask():
        barrier.wait()
        seen.append((plugin_manager(), registry.available()))

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(seen) == 8 and len({id(pm) for pm, _ in seen}) == 1
    assert all(found == seen[0][1] and "plugin-rounds" in found for _, found in seen)
    assert [p.name for p in plugins()] == [*PLUGINS, f"{FIXTURES}.rounds"]
    assert problems() == []
