"""The command line: the README's demo command, JSON lines, errors, a human at the prompt."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from debate_core.events import read_jsonl
from tests.conftest import HANG_GUARD_S

ROOT = Path(__file__).resolve().parents[1]


def run_cli(*args: str, stdin: str | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "debate_core", "run", *args],
        capture_output=True,
        text=True,
        input=stdin,
        cwd=cwd or ROOT,
        timeout=HANG_GUARD_S,
    )


def test_default_scripted_run_writes_every_event_with_an_interruption_and_a_silence(tmp_path):
    out = tmp_path / "out.jsonl"
    result = run_cli("--backend", "scripted", "--condition", "interruptible", "--seed", "1", "--events-jsonl", str(out))
    assert result.returncode == 0, result.stderr
    lines = out.read_text(encoding="utf-8").splitlines()
    objects = [json.loads(line) for line in lines]
    types = [obj["type"] for obj in objects]
    assert types[0] == "debate_started" and types[-1] == "debate_ended"
    assert "interrupted" in types and "silent_turn" in types
    assert objects[-1]["reason"] == "budget"
    assert objects[-1]["public_tokens"] >= 500
    # the file is loadable back as the same typed events
    events = list(read_jsonl(out))
    assert len(events) == len(lines)
    assert "Final answer: B" in result.stdout
    assert "cuts off" in result.stdout


def test_custom_question_and_agents_from_options(tmp_path):
    out = tmp_path / "e.jsonl"
    result = run_cli(
        "--question",
        "Is the sky blue on a clear day?",
        "--option",
        "Yes",
        "--option",
        "No",
        "--answer",
        "A",
        "--agents",
        "Ann,Bob",
        "--persona",
        "Ann=A sceptical physicist.",
        "--initial",
        "Bob=B:clouds",
        "--condition",
        "dynamic",
        "--budget",
        "80",
        "--events-jsonl",
        str(out),
        "--quiet",
    )
    assert result.returncode == 0, result.stderr
    events = list(read_jsonl(out))
    started = events[0]
    assert [a.name for a in started.config.agents] == ["Ann", "Bob"]
    assert started.config.agents[0].persona == "A sceptical physicist."
    assert started.protocol == "dynamic"
    initial = events[1]
    bob = next(a for a in initial.answers if a.agent == "Bob")
    assert (bob.answer, bob.reason, bob.source.value) == ("B", "clouds", "supplied")
    assert events[-1].type == "debate_ended"
    # --quiet prints only the result panel
    assert "Final answer" in result.stdout and "plans:" not in result.stdout


def test_invalid_setup_is_a_clear_error_not_a_traceback():
    result = run_cli("--agents", "Solo", "--budget", "100")
    assert result.returncode == 2
    assert "at least 2 agents" in result.stdout
    assert "Traceback" not in result.stderr
    result = run_cli("--budget", "0")
    assert result.returncode == 2 and "token_budget" in result.stdout
    result = run_cli("--question", "Q?", "--option", "x", "--option", "y", "--answer", "Z")
    assert result.returncode == 2 and "not one of the option labels" in result.stdout


def test_human_at_the_terminal_takes_part_and_is_heard(tmp_path):
    out = tmp_path / "h.jsonl"
    # Jenny is human: she gives an initial answer, asks for the floor at turn 0
    # with urgency 9, says two sentences, then her input ends: from then on her
    # seat falls back to listening and the debate goes on to its end.
    lines = ["B nitrogen is most of the air", "s 9 B", "Nitrogen is 78 percent. Oxygen is only 21."]
    result = run_cli(
        "--human",
        "Jenny",
        "--budget",
        "120",
        "--events-jsonl",
        str(out),
        "--no-plans",
        stdin="\n".join(lines) + "\n",
    )
    assert result.returncode == 0, result.stderr
    events = list(read_jsonl(out))
    initial = next(e for e in events if e.type == "initial_answers")
    jenny = next(a for a in initial.answers if a.agent == "Jenny")
    assert (jenny.answer, jenny.source.value) == ("B", "human")
    said = [e for e in events if e.type == "unit_disclosed" and e.speaker == "Jenny"]
    # her first sentence is heard; the demo's agents cut a person off once, after it
    assert [(e.index, e.text) for e in said] == [(0, "Nitrogen is 78 percent.")]
    cut = next(e for e in events if e.type == "interrupted" and e.interrupted == "Jenny")
    assert cut.discarded == ("Oxygen is only 21.",)
    assert cut.turn == said[0].turn  # cut off at the boundary after her first sentence
    later = [e for e in events if e.type == "plans_made" and e.turn > said[0].turn]
    jenny_plans = [p for e in later for p in e.plans if p.agent == "Jenny"]
    assert jenny_plans and all(not p.valid and p.plan.action.value == "listen" for p in jenny_plans)
    assert events[-1].type == "debate_ended" and events[-1].reason.value == "budget"
    # the correct answer is not shown to the person at the table until the debate has ended
    header, _, ending = result.stdout.partition("Final answer:")
    assert "correct answer: B" not in header and "correct answer: shown when the debate ends" in header
    assert "Correct answer: B" in ending


def test_transformers_backend_runs_on_the_embedded_model_and_says_so(tmp_path):
    out = tmp_path / "real.jsonl"
    result = run_cli(
        "--backend",
        "transformers",
        "--layout",
        "cached",
        "--budget",
        "40",
        "--max-turns",
        "2",
        "--utterance-max-new-tokens",
        "24",
        "--max-new-tokens",
        "128",  # a plan's cap (the paper's 1,024 lets the tiny model ramble for minutes)
        "--events-jsonl",
        str(out),
        "--no-plans",
    )
    assert result.returncode == 0, result.stderr
    assert "tiny demonstration model" in result.stdout
    assert "SmolLM2-135M-Instruct" in result.stdout
    events = list(read_jsonl(out))
    assert events[0].model_id.startswith("SmolLM2-135M-Instruct")
    assert events[-1].type == "debate_ended"
    plans = [p for e in events if e.type == "plans_made" for p in e.plans]
    assert plans and all(p.valid for p in plans)


def test_a_model_that_cannot_be_found_offline_is_a_clear_error():
    result = run_cli("--backend", "transformers", "--model", "no-such-org/no-such-model", "--budget", "20")
    assert result.returncode == 1
    assert "could not load model" in result.stdout and "HF_HUB_OFFLINE" in result.stdout
    assert "Traceback" not in result.stderr


def test_model_options_need_the_transformers_backend():
    result = run_cli("--model", "x")
    assert result.returncode == 2 and "needs a model backend, not the scripted one" in result.stdout


def run_storage(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "storage", *args], capture_output=True, text=True, cwd=ROOT, timeout=HANG_GUARD_S
    )


def test_db_option_records_the_debate_and_storage_cli_lists_shows_exports_imports(tmp_path):
    db = tmp_path / "debates.sqlite3"
    result = run_cli("--seed", "1", "--budget", "120", "--db", str(db), "--quiet")
    assert result.returncode == 0, result.stderr
    assert "Recorded as debate" in result.stdout
    listing = run_storage("--db", str(db), "list")
    assert listing.returncode == 0 and "finished" in listing.stdout and "interruptible" in listing.stdout
    debate_id = result.stdout.split("Recorded as debate ")[1].split()[0]
    shown = run_storage("--db", str(db), "show", debate_id[:8])
    assert shown.returncode == 0 and "cuts off" in shown.stdout and "Final answer: B" in shown.stdout
    out = tmp_path / "t.json"
    exported = run_storage("--db", str(db), "export", debate_id[:8], "--out", str(out), "--csv", str(tmp_path))
    assert exported.returncode == 0 and out.is_file() and (tmp_path / "plans.csv").is_file()
    other = tmp_path / "other.sqlite3"
    assert run_storage("--db", str(other), "import", str(out)).returncode == 0
    again = run_storage("--db", str(other), "import", str(out))
    assert again.returncode == 1 and "already in the store" in again.stdout
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "interruptible-debate", "schema_version": 9, "events": []}')
    refused = run_storage("--db", str(other), "import", str(broken))
    assert refused.returncode == 1 and "schema_version" in refused.stdout and "Traceback" not in refused.stderr


def test_protocol_and_variant_give_the_same_debate_as_the_condition_alias(tmp_path):
    from tests.golden.scenarios import normalise

    outputs = []
    for flags in (["--protocol", "kimura", "--variant", "interruptible"], ["--condition", "interruptible"]):
        out = tmp_path / f"{len(outputs)}.jsonl"
        result = run_cli(*flags, "--backend", "scripted", "--seed", "1", "--events-jsonl", str(out))
        assert result.returncode == 0, result.stderr
        events = [normalise(json.loads(line)) for line in out.read_text(encoding="utf-8").splitlines()]
        for event in events:
            event.pop("at"), event.pop("debate_id", None)
        outputs.append(events)
    assert outputs[0] == outputs[1]
    started = outputs[0][0]
    assert (started["config"]["protocol"], started["config"]["variant"], started["config"]["condition"]) == (
        "kimura",
        "interruptible",
        "interruptible",
    )


def test_protocols_lists_variants_roles_and_parameters():
    result = subprocess.run(
        [sys.executable, "-m", "debate_core", "protocols"], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert "kimura" in result.stdout and "variants: interruptible, dynamic, fixed" in result.stdout
    assert "request kinds: initial_answer, plan, utterance" in result.stdout
    assert "study temperature: 0.3 (python -m experiments compare" in result.stdout  # Kimura's Table IV
    assert "study temperature: the backend's default" in result.stdout  # Parliament: the API's default


def test_a_bad_protocol_is_a_clear_error():
    result = run_cli("--protocol", "nope")
    assert result.returncode == 2 and "unknown protocol 'nope'" in result.stdout
    result = run_cli("--variant", "loud")
    assert result.returncode == 2 and "kimura has no variant 'loud'" in result.stdout


def test_model_for_gives_an_agent_or_a_role_its_own_model():
    from console.cli import backend_from_args, build_parser, config_from_args
    from debate_core.backends import BackendRouter

    tar = ["--protocol", "baselines", "--variant", "tar"]
    own = ["--model-for", "Chris=org/listener", "--model-for", "judge=org/judge"]
    args = build_parser().parse_args(["run", "--backend", "transformers", *tar, *own])
    backend = backend_from_args(args, config_from_args(args))
    assert isinstance(backend, BackendRouter)
    assert backend.backend_for("Chris", "negative").model_id == "org/listener"
    assert backend.backend_for("Alex", "affirmative").model_id.startswith("SmolLM2-135M")
    assert backend.backend_for("Jenny", "judge").model_id == "org/judge"  # a role: whoever holds it


def test_parliament_runs_from_the_terminal_with_a_point_of_information_and_its_reply(tmp_path):
    out = tmp_path / "p.jsonl"
    result = run_cli(
        "--protocol", "parliament", "--variant", "british", "--backend", "scripted", "--seed", "1",
        "--events-jsonl", str(out),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    events = list(read_jsonl(out))
    point = next(e for e in events if e.type == "intervention")
    reply = next(e for e in events if e.type == "utterance_generated" and e.kind == "poi_reply")
    assert (point.kind, point.author, reply.speaker) == ("point_of_information", "Chris", "Alex")
    assert "point of information" in result.stdout and "Final answer: B" in result.stdout


def test_handraisers_learned_listener_takes_the_moderators_seat_from_its_parameter(tmp_path):
    from console.cli import backend_from_args, build_parser, config_from_args
    from debate_core.backends import BackendRouter

    args = build_parser().parse_args(
        [
            "run",
            "--backend",
            "transformers",
            "--protocol",
            "handraiser",
            "--variant",
            "learned",
            "--param",
            "listener=listeners/l1",
        ]
    )
    config = config_from_args(args)
    backend = backend_from_args(args, config)
    assert isinstance(backend, BackendRouter)
    assert backend.backend_for("Jenny", "moderator").model_id == "listeners/l1"
    assert backend.backend_for("Alex", "pro").model_id.startswith("SmolLM2-135M")
    out = tmp_path / "h.jsonl"
    result = run_cli(
        "--protocol", "handraiser", "--variant", "learned", "--param", "listener=listeners/l1",
        "--backend", "scripted", "--events-jsonl", str(out),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    events = list(read_jsonl(out))
    assert events[0].model_id == "scripted-demo (+ listeners/l1)"
    assert any(e.type == "listener_decision" and e.policy == "prompted" for e in events)


def test_the_terminal_shows_aces_analysis_acts_and_the_observers_pick(tmp_path):
    result = run_cli("--protocol", "ace", "--variant", "no_analyze", "--backend", "scripted")
    assert result.returncode == 0, result.stderr
    assert "revise + withhold" in result.stdout  # each debater's acts
    assert "picks B" in result.stdout and "Final answer: B" in result.stdout  # they disagree: the observer picks
    full = run_cli("--protocol", "ace", "--backend", "scripted")
    assert "match 1↔1; differ 2≠2" in full.stdout and "observer_stop" in full.stdout


def test_a_task_with_its_own_demo_question_plays_it_when_none_is_given(tmp_path):
    """Meeting Scheduling's answer is a verdict on a schedule, not an option label: its demo is one of its cases."""
    out = tmp_path / "m.jsonl"
    result = run_cli("--protocol", "scheduling", "--backend", "scripted", "--quiet", "--events-jsonl", str(out))
    assert result.returncode == 0, result.stderr
    events = list(read_jsonl(out))
    assert "Meeting" in events[0].config.question.text and events[0].config.question.answer == "valid"
    assert (events[-1].final_answer, events[-1].correct) == ("valid", True)
