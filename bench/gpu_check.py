"""The transformers backend and every protocol on a device (a CUDA GPU, or the CPU to compare): does it all run?

Prints, for each ``--device`` given (e.g. ``--device cuda --device cpu``):

1. the device, the dtype the backend chose and the library versions;
2. direct backend probes: a left-padded batch of three requests with token
   statistics, choice probabilities and a JSON schema; prefix reuse (a
   repeated prompt reuses its cached key/values and, greedy, gives the same
   tokens as without reuse); the attention probe (SID's) on this device
   against the CPU in float32, largest difference of the scores;
3. one short debate per case (each protocol's default variant, plus the JSON
   and attention paths: parliament and ace ``--small-model``, SID's
   ``compress``), bounded by ``--max-new-tokens``, ``--budget`` and
   ``--max-turns``: how it ended (or the exception), generated tokens,
   tokens/s, model calls, attention and JSON requests, prompt and cached
   tokens, wall seconds and peak GPU memory (``torch.cuda.max_memory_allocated``);
   every exception a backend call raised is counted and the first is printed
   in full, since protocols turn a failing call into their documented fallback;
4. with ``--train-steps N``: ``train-listener`` (HandRaiser's LoRA listener)
   for N steps on this device from the model, then HandRaiser's ``learned``
   variant seated with it.

    python bench/tiny_model.py                       # once: .tiny-model, a 2-layer random Llama
    python bench/gpu_check.py --model .tiny-model --device cuda --device cpu --train-steps 4

The model is meant to be tiny and random: its replies are noise, so each
debate runs on its fallbacks for unusable replies; what is checked is that
nothing raises and every path runs on the device. Work is bounded by tokens
and turns, never by wall-clock. Exit status 1 when any case failed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from console.cli import backend_from_args, build_parser, config_from_args
from debate_core import Debate
from debate_core.backends.base import AttentionQuery, GenerationRequest, Message, SamplingParams, Signals
from debate_core.backends.hf import TransformersBackend
from debate_core.backends.hf.loading import loaded_specs, unload_model

# (label, protocol, extra ``run`` flags); every protocol's default variant first
CASES: list[tuple[str, str, list[str]]] = [
    ("kimura", "kimura", []),
    ("kimura cached", "kimura", ["--layout", "cached"]),
    ("parliament", "parliament", []),
    ("parliament json", "parliament", ["--small-model"]),
    ("handraiser", "handraiser", []),
    ("ace", "ace", []),
    ("ace constrained", "ace", ["--small-model"]),
    ("sid", "sid", []),
    ("sid compress", "sid", ["--variant", "compress"]),
    ("baselines", "baselines", []),
]


@dataclass
class Tally:
    """What the backend was asked and what it raised, while one case ran."""

    calls: int = 0
    requests: int = 0
    attention: int = 0
    schemas: int = 0
    choices: int = 0
    stats: int = 0
    generated: int = 0
    largest_batch: int = 0
    errors: list[str] = field(default_factory=list)
    finish: Counter[str] = field(default_factory=Counter)


TALLY = Tally()
_generate = TransformersBackend.generate


def _counting_generate(self: TransformersBackend, requests: Any) -> Any:
    requests = list(requests)
    TALLY.calls += 1
    TALLY.requests += len(requests)
    TALLY.largest_batch = max(TALLY.largest_batch, len(requests))
    TALLY.attention += sum(r.signals.attention is not None for r in requests)
    TALLY.schemas += sum(r.json_schema is not None for r in requests)
    TALLY.choices += sum(bool(r.signals.choices) for r in requests)
    TALLY.stats += sum(r.signals.token_stats for r in requests)
    try:
        completions = _generate(self, requests)
    except Exception as error:
        cause = error.__cause__ or error
        TALLY.errors.append("".join(traceback.format_exception(type(cause), cause, cause.__traceback__)))
        raise
    TALLY.generated += sum(c.completion_tokens for c in completions)
    TALLY.finish.update(c.finish_reason for c in completions)
    return completions


TransformersBackend.generate = _counting_generate  # type: ignore[method-assign]


def cuda_used(device: str) -> bool:
    return device.startswith("cuda")


def reset_peak(device: str) -> None:
    if cuda_used(device):
        import torch

        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()


def peak_mib(device: str) -> str:
    if not cuda_used(device):
        return "-"
    import torch

    torch.cuda.synchronize()
    return f"{torch.cuda.max_memory_allocated() / 2**20:.1f}"


def unload_all() -> None:
    for spec in loaded_specs():
        unload_model(spec)


# -- 1 and 2: the backend itself ---------------------------------------------------------------


def environment(args: argparse.Namespace, device: str) -> None:
    import torch
    import transformers

    backend = TransformersBackend(args.model, device=device, dtype=args.dtype)
    loaded = backend.loaded
    where = torch.cuda.get_device_name(0) if cuda_used(device) else "cpu"
    print(
        f"device {device} ({where}): model {args.model} loaded as {loaded.dtype} on {loaded.device} "
        f"in {loaded.load_seconds:.2f} s; torch {torch.__version__}, transformers {transformers.__version__}"
    )
    parameter = next(loaded.model.parameters())
    print(f"  parameters on {parameter.device} in {parameter.dtype}")


def probe(name: str, check: Any) -> bool:
    started = time.perf_counter()
    try:
        said = check()
    except Exception:
        print(f"  {name}: ERROR")
        print("    " + traceback.format_exc().replace("\n", "\n    "))
        return False
    print(f"  {name}: ok ({time.perf_counter() - started:.2f} s) {said}")
    return True


def _request(text: str, agent: str, max_new: int = 12, **extra: Any) -> GenerationRequest:
    return GenerationRequest((Message("user", text),), SamplingParams(0.0, max_new, 0), "probe", agent, 1, **extra)


def backend_probes(args: argparse.Namespace, device: str) -> bool:
    backend = TransformersBackend(args.model, device=device, dtype=args.dtype)
    schema = {
        "type": "object",
        "properties": {"answer": {"type": "string", "enum": ["A", "B", "C", "D"]}, "why": {"type": "string"}},
        "required": ["answer", "why"],
        "additionalProperties": False,
    }

    def batch() -> str:
        requests = [
            _request("Hi.", "a", signals=Signals(token_stats=True)),
            _request("Answer with A, B, C or D. " * 12, "b", signals=Signals(choices=("A", "B", "C", "D"))),
            _request("Reply in JSON with an answer and why.", "c", max_new=24, json_schema=schema),
        ]
        out = backend.generate(requests)
        assert out[0].token_nll is not None and len(out[0].token_nll) == out[0].completion_tokens
        assert out[1].choice_probs is not None and 0 < sum(out[1].choice_probs.values()) <= 1 + 1e-4
        if out[2].finish_reason == "stop":
            json.loads(out[2].text)  # a finished constrained reply parses
        return f"tokens {[c.completion_tokens for c in out]}, finish {[c.finish_reason for c in out]}"

    def reuse() -> str:
        text = "Tell me about the sea and its long history. " * 10
        fresh = TransformersBackend(args.model, device=device, dtype=args.dtype, prefix_reuse=False)
        first = backend.generate([_request(text, "r", cache_key="probe/r/x")])[0]
        again = backend.generate([_request(text + " More.", "r", cache_key="probe/r/x")])[0]
        plain = fresh.generate([_request(text + " More.", "r")])[0]
        assert again.cached_tokens > 0, "nothing was reused"
        same = again.text == plain.text
        if backend.loaded.dtype == "float32":
            assert same, (again.text, plain.text)
        backend.release("probe")
        reused = f"first {first.prompt_tokens} prompt tokens, then {again.cached_tokens} reused"
        return f"{reused}; same tokens as without reuse: {same}"

    def attention() -> str:
        sentence = "Alex argued that the pituitary gland sits in the cranial cavity, below the brain. "
        text = f"Rules: [[C]] Answer with one letter and keep it short. [[/C]]\nHistory: <<R>> {sentence * 8}<</R>>"
        query = AttentionQuery(rows=("<<R>>", "<</R>>"), cols=("[[C]]", "[[/C]]"), layer=-1)
        request = _request(text, "s", signals=Signals(attention=query))
        here = backend.generate([request])[0].attention
        assert here is not None and here.tokens
        said = f"{len(here.tokens)} tokens scored"
        if device != "cpu":  # the same probe in float32 on this device and on the CPU
            exact = TransformersBackend(args.model, device=device, dtype="float32")
            cpu = TransformersBackend(args.model, device="cpu", dtype="float32")
            a = exact.generate([request])[0].attention
            b = cpu.generate([request])[0].attention
            assert a is not None and b is not None
            diff = max(abs(x.score - y.score) for x, y in zip(a.tokens, b.tokens, strict=True))
            said += f"; float32 here vs cpu: largest score difference {diff:.2e}"
            assert diff < 1e-3, diff
            exact.close()
            cpu.close()
        return said

    reset_peak(device)
    results = [probe("batch of 3 (padding, token stats, choices, JSON)", batch)]
    results.append(probe("prefix reuse", reuse))
    results.append(probe("attention probe", attention))
    print(f"  peak GPU memory of the probes: {peak_mib(device)} MiB")
    unload_all()
    return all(results)


# -- 3 and 4: debates ---------------------------------------------------------------------------


def run_case(args: argparse.Namespace, device: str, label: str, protocol: str, extra: list[str]) -> dict[str, Any]:
    global TALLY
    TALLY = Tally()
    argv = ["run", "--protocol", protocol, "--backend", "transformers", "--model", args.model, "--device", device]
    argv += ["--max-new-tokens", str(args.max_new_tokens), "--budget", str(args.budget)]
    argv += ["--max-turns", str(args.max_turns), "--seed", str(args.seed), "--quiet", *extra]
    if args.dtype:
        argv += ["--dtype", args.dtype]
    result: dict[str, Any] = {"case": label, "device": device}
    reset_peak(device)
    started = time.perf_counter()
    try:
        parsed = build_parser().parse_args(argv)
        config = config_from_args(parsed)
        backend = backend_from_args(parsed, config)
        end = list(Debate(config, backend).events())[-1]
        result["ended"] = f"{end.reason.value}" + (f": {end.error}" if getattr(end, "error", None) else "")
        result["ok"] = end.type == "debate_ended" and end.reason.value != "error" and not TALLY.errors
        result["final"] = end.final_answer
        result["turns"] = end.stats.turns
        result["prompt"], result["cached"] = end.stats.prompt_tokens, end.stats.cached_prompt_tokens
    except Exception as error:
        result["ended"] = f"EXCEPTION {type(error).__name__}: {error}"
        result["ok"] = False
        result["traceback"] = traceback.format_exc()
    seconds = time.perf_counter() - started
    result.update(
        seconds=round(seconds, 2),
        generated=TALLY.generated,
        tokens_per_s=round(TALLY.generated / seconds, 1) if seconds else 0.0,
        calls=TALLY.calls,
        requests=TALLY.requests,
        largest_batch=TALLY.largest_batch,
        attention=TALLY.attention,
        schemas=TALLY.schemas,
        choices=TALLY.choices,
        token_stats=TALLY.stats,
        finish=dict(TALLY.finish),
        backend_errors=len(TALLY.errors),
        peak_mib=peak_mib(device),
    )
    if TALLY.errors:
        result["first_backend_error"] = TALLY.errors[0]
    return result


HEADER = (
    f"{'case':<17} {'device':<6} {'ended':<22} {'gen tok':>7} {'tok/s':>7} {'calls':>5} {'reqs':>5} "
    f"{'batch':>5} {'attn':>4} {'json':>4} {'prompt':>7} {'cached':>7} {'sec':>6} {'peak MiB':>8} errors"
)


def show(result: dict[str, Any]) -> None:
    print(
        f"{result['case']:<17} {result['device']:<6} {result['ended'][:22]:<22} {result['generated']:>7} "
        f"{result['tokens_per_s']:>7} {result['calls']:>5} {result['requests']:>5} {result['largest_batch']:>5} "
        f"{result['attention']:>4} {result['schemas']:>4} "
        f"{result.get('prompt', '-'):>7} {result.get('cached', '-'):>7} "
        f"{result['seconds']:>6} {result['peak_mib']:>8} {result['backend_errors']}",
        flush=True,
    )
    if len(result["ended"]) > 22:
        print(f"    ended: {result['ended']}")
    for key in ("traceback", "first_backend_error"):
        if key in result:
            print("    " + result[key].rstrip().replace("\n", "\n    "))


def train_listener(args: argparse.Namespace, device: str, folder: Path) -> tuple[dict[str, Any], str | None]:
    """``train-listener`` on this device for ``--train-steps`` steps; the listener's folder, or None."""
    from protocols.handraiser.study.train_listener import Settings, train

    def line(answer: str, partial: str) -> str:
        user = (
            "Question:\nIs the sky blue?\n\nPro argues that the answer is yes. Con argues that it is no.\n\n"
            f'Pro is speaking now. What you have heard so far:\n"{partial}"\n\n'
            "Have you heard enough from Pro to cut them off now? Answer with one word, Yes or No."
        )
        messages = [
            {"role": "system", "content": "You are the moderator of a debate between Pro and Con."},
            {"role": "user", "content": user},
            {"role": "assistant", "content": answer},
        ]
        return json.dumps({"messages": messages, "label": answer, "meta": {"node": 1}})

    data = folder / "listener.jsonl"
    rows = [line("Yes", "I repeat myself once more.")] * 4 + [line("No", "Here is new evidence.")] * 4
    data.write_text("\n".join(rows) + "\n", encoding="utf-8")
    out = folder / f"listener-{device.replace(':', '-')}"
    settings = Settings(
        data=[str(data)], out=str(out), base=args.model, steps=args.train_steps, batch_size=2,
        eval_fraction=0.25, device=device, log_every=max(1, args.train_steps // 2),
    )  # fmt: skip
    result: dict[str, Any] = {"case": "train-listener", "device": device}
    reset_peak(device)
    started = time.perf_counter()
    try:
        record = train(settings, log=lambda text: print(f"    {text}", flush=True))
        result.update(ok=True, ended=f"trained {record['steps']} steps on {record['device']} ({record['dtype']})")
        result["losses"] = record["losses"]
    except Exception as error:
        result.update(ok=False, ended=f"EXCEPTION {type(error).__name__}: {error}", traceback=traceback.format_exc())
    result.update(seconds=round(time.perf_counter() - started, 2), peak_mib=peak_mib(device))
    print(f"train-listener    {device:<6} {result['ended']}; {result['seconds']} s, peak {result['peak_mib']} MiB")
    if "losses" in result:
        print(f"    losses {result['losses']}")
    if "traceback" in result:
        print("    " + result["traceback"].rstrip().replace("\n", "\n    "))
    return result, str(out) if result["ok"] else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default=".tiny-model", help="hub id or folder (default .tiny-model)")
    parser.add_argument("--device", action="append", help="cuda, cpu, ...; repeat to compare (default cuda)")
    parser.add_argument("--dtype", help="default: chosen per device by the backend")
    parser.add_argument("--max-new-tokens", type=int, default=32)
    parser.add_argument("--budget", type=int, default=60)
    parser.add_argument("--max-turns", type=int, default=6)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--case", action="append", help="run only these cases (labels, e.g. 'sid compress')")
    parser.add_argument("--train-steps", type=int, default=0, help="train-listener steps on each device (0: skip)")
    parser.add_argument("--no-probes", action="store_true", help="skip the direct backend probes")
    parser.add_argument("--json", help="write every result to this JSON file")
    args = parser.parse_args()
    devices = args.device or ["cuda"]
    cases = [c for c in CASES if not args.case or c[0] in args.case]
    results: list[dict[str, Any]] = []
    failed = False
    with tempfile.TemporaryDirectory(prefix="gpu-check-") as scratch:
        for device in devices:
            print(f"\n=== {device} ===", flush=True)
            environment(args, device)
            if not args.no_probes:
                failed |= not backend_probes(args, device)
            print(HEADER)
            for label, protocol, extra in cases:
                result = run_case(args, device, label, protocol, extra)
                show(result)
                results.append(result)
                failed |= not result["ok"]
            unload_all()
            if args.train_steps:
                trained, listener = train_listener(args, device, Path(scratch))
                results.append(trained)
                failed |= not trained["ok"]
                if listener:
                    extra = ["--variant", "learned", "--param", f"listener={listener}"]
                    result = run_case(args, device, "handraiser learned", "handraiser", extra)
                    show(result)
                    results.append(result)
                    failed |= not result["ok"]
                unload_all()
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2, default=str) + "\n", encoding="utf-8")
    print("\nall cases ran clean" if not failed else "\nSOME CASES FAILED (see above)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
