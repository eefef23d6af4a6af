"""``python -m experiments train-listener``: fine-tune HandRaiser's listener on Yes/No examples.

    python -m experiments train-listener --data trees.jsonl --out listeners/smol [--steps 200]

What it does: reads chat-format JSON lines (``{"messages": [system, user,
{"role": "assistant", "content": "Yes" | "No"}], "label": ..., "meta": ...}``,
checked and split by ``listener_data``), renders each prompt exactly as the
transformers backend does (``backends.hf.prompt.tokenize_prompt``: the chat
template with the generation prompt, tokenized without special tokens),
appends the answer's tokens (``"Yes"``/``"No"`` tokenized alone, whose first
token is the one the backend's one-token ``listen`` request reads) and
fine-tunes with a plain torch loop, the cross-entropy taken on the answer
tokens only: every weight by default (full fine-tuning, the paper's §4.2,
``--full``), or LoRA adapters (``peft``) with ``--lora``, which a single GPU
affords for an 8B listener. The learning rate defaults to 1e-5 for full
fine-tuning and 2e-4 for LoRA (the paper's is lost from its text). Prompts longer than ``--max-length`` lose tokens from
the **left**, so the partial statement and the closing question stay. Batches
are drawn with class-balanced sampling (each label equally likely, with
replacement; ``--no-balance`` makes shuffled passes instead). A stratified
``--eval-fraction`` is held out and scored before and after training
(accuracy of P(Yes) > P(No) at the first answer position, balanced accuracy,
Yes-rate, mean P(Yes), how often the greedy token is Yes or No, loss). LoRA's
adapters are then merged into the base (``merge_and_unload``); either way a
full model folder is saved with its tokenizer and ``listener.json`` (settings,
data files and their sha256, counts, label balance, losses, timings,
evaluation), loadable as ``TransformersBackend(model=OUT)``, i.e.
HandRaiser's ``listener=OUT``. On a GPU an 8B model at batch 8 and ~2k-token
prompts needs ``--gradient-checkpointing`` (an H100 runs out of memory
without it, which is reported as an error, not a traceback).

What it does not do: sample the training data (the tree sampler does), train
anything but the answer tokens (no end-of-turn token), quantize, or stop on
wall-clock time: work is bounded by ``--steps``. torch, transformers and peft
are imported only when training runs (peft only for LoRA).
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import tempfile
import time
import warnings
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

from rich.console import Console

from debate_core.backends.base import GenerationRequest, SamplingParams
from experiments.extensions import Command
from experiments.workers import ExperimentError
from protocols.handraiser.study.listener_data import ANSWERS, Example, read_data, split

FULL_LR, LORA_LR = 1e-5, 2e-4


@dataclass(frozen=True)
class Settings:
    data: Sequence[str]
    out: str
    base: str | None = None  # None: the embedded SmolLM2-135M
    steps: int = 100
    batch_size: int = 4
    lr: float | None = None  # None: 1e-5 for full fine-tuning, 2e-4 for LoRA
    lora: bool = False  # False: every weight trained (the paper's full fine-tuning); True: LoRA adapters, merged
    lora_r: int = 16
    lora_alpha: int = 32
    lora_dropout: float = 0.05
    lora_targets: str = "all-linear"
    max_length: int = 2048
    seed: int = 0
    device: str = "auto"
    dtype: str | None = None
    eval_fraction: float = 0.1
    balance: bool = True
    gradient_checkpointing: bool = False
    log_every: int = 10
    overwrite: bool = False


@dataclass
class Encoded:
    prompt: list[int]
    answer: list[int]
    label: str
    truncated: bool = False


@dataclass
class Model:
    """The model being trained and what every batch needs."""

    model: Any
    tokenizer: Any
    device: str
    pad_id: int
    choice_ids: dict[str, int]  # the first token of each answer: what the backend's listen request reads


def check_out(out: Path, overwrite: bool) -> None:
    if out.exists() and not out.is_dir():
        raise ExperimentError(f"--out {out} is a file")
    if out.is_dir() and any(out.iterdir()) and not overwrite:
        raise ExperimentError(f"--out {out} exists and is not empty (pass --overwrite to replace it)")


def encode(tokenizer: Any, example: Example, max_length: int) -> Encoded:
    """The prompt's ids as the backend sees them (left-truncated to fit), then the answer's."""
    from debate_core.backends.hf.prompt import tokenize_prompt

    request = GenerationRequest(example.messages, SamplingParams(0.0, 1), "listen", "moderator", 0)
    prompt = tokenize_prompt(tokenizer, request).ids
    answer = [int(i) for i in tokenizer.encode(example.label, add_special_tokens=False)]
    room = max_length - len(answer)
    if room < 1:
        raise ExperimentError(f"--max-length {max_length} leaves no room for a prompt")
    return Encoded(prompt[-room:], answer, example.label, truncated=len(prompt) > room)


def _answer_logits(m: Model, rows: Sequence[Encoded]) -> tuple[Any, Any, Any]:
    """Logits at the positions that predict the answer tokens (``[N, V]``), their targets, which are first."""
    import torch

    length = max(len(r.prompt) + len(r.answer) for r in rows)
    ids = torch.full((len(rows), length), m.pad_id, dtype=torch.long)
    mask = torch.zeros((len(rows), length), dtype=torch.long)
    wanted: list[tuple[int, int, int, bool]] = []  # row, position whose logits predict the token, token, first
    for i, row in enumerate(rows):  # right padding, so the default position ids are right
        full = row.prompt + row.answer
        ids[i, : len(full)] = torch.tensor(full)
        mask[i, : len(full)] = 1
        wanted.extend((i, len(row.prompt) + j - 1, token, j == 0) for j, token in enumerate(row.answer))
    positions = sorted({w[1] for w in wanted})
    column = {p: k for k, p in enumerate(positions)}
    keep = torch.tensor(positions, device=m.device)  # the lm head runs on these positions only
    out = m.model(input_ids=ids.to(m.device), attention_mask=mask.to(m.device), logits_to_keep=keep, use_cache=False)
    logits = out.logits[[w[0] for w in wanted], [column[w[1]] for w in wanted]].float()
    targets = torch.tensor([w[2] for w in wanted], device=m.device)
    return logits, targets, torch.tensor([w[3] for w in wanted], device=m.device)


def evaluate(m: Model, rows: Sequence[Encoded], batch_size: int) -> dict[str, float]:
    """Held-out accuracy (P(Yes) > P(No) at the first answer position) and friends."""
    import torch

    yes, no = m.choice_ids["Yes"], m.choice_ids["No"]
    right, said_yes, valid, p_yes, loss = Counter[str](), 0, 0, 0.0, 0.0
    m.model.eval()
    with torch.no_grad():
        for start in range(0, len(rows), batch_size):
            batch = rows[start : start + batch_size]
            logits, targets, first = _answer_logits(m, batch)
            loss += float(torch.nn.functional.cross_entropy(logits, targets, reduction="sum"))
            for row, p in zip(batch, torch.softmax(logits[first], dim=-1), strict=True):
                guess = "Yes" if p[yes] > p[no] else "No"
                right[row.label] += guess == row.label
                said_yes += guess == "Yes"
                valid += int(p.argmax()) in (yes, no)
                p_yes += float(p[yes])
    n, counts = len(rows), Counter(r.label for r in rows)
    return {
        "examples": n,
        "accuracy": right.total() / n,
        "balanced_accuracy": sum(right[label] / counts[label] for label in counts) / len(counts),
        "yes_rate": said_yes / n,
        "mean_p_yes": p_yes / n,
        "greedy_yes_or_no": valid / n,
        "loss": loss / sum(len(r.answer) for r in rows),
    }


def _batches(rows: Sequence[Encoded], settings: Settings) -> Callable[[], list[Encoded]]:
    """Draws one training batch: class-balanced with replacement, or shuffled passes over the data."""
    rng = random.Random(settings.seed + 1)
    counts = Counter(r.label for r in rows)
    weights = [1 / counts[r.label] for r in rows]
    order: list[int] = []

    def draw() -> list[Encoded]:
        if settings.balance:
            return rng.choices(list(rows), weights=weights, k=settings.batch_size)
        while len(order) < settings.batch_size:
            order.extend(rng.sample(range(len(rows)), len(rows)))
        taken = [rows[i] for i in order[: settings.batch_size]]
        del order[: settings.batch_size]
        return taken

    return draw


def load(settings: Settings) -> Model:
    """The base model and tokenizer on the chosen device."""
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import logging as hf_logging

    from debate_core.backends.hf.embedded import embedded_model_dir
    from debate_core.backends.hf.loading import pick_device, pick_dtype

    hf_logging.disable_progress_bar()
    base = str(embedded_model_dir()) if settings.base is None else settings.base
    device = pick_device(None if settings.device == "auto" else settings.device)
    placement = {"device_map": device} if device != "cpu" else {}
    try:
        tokenizer: Any = AutoTokenizer.from_pretrained(base)
        model: Any = AutoModelForCausalLM.from_pretrained(base, dtype=pick_dtype(settings.dtype, device), **placement)
    except OSError as error:
        raise ExperimentError(f"could not load base model {base!r}: {error}") from None
    model.to(device)
    pad_id = next(i for i in (tokenizer.pad_token_id, tokenizer.eos_token_id, 0) if i is not None)
    choice_ids = {a: int(tokenizer.encode(a, add_special_tokens=False)[0]) for a in ANSWERS}
    if choice_ids["Yes"] == choice_ids["No"]:
        raise ExperimentError("this tokenizer gives Yes and No the same first token")
    return Model(model, tokenizer, device, int(pad_id), choice_ids)


def train(settings: Settings, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Fine-tune, merge and save the listener; returns what was written to ``listener.json``."""
    started = time.perf_counter()
    check_out(Path(settings.out), settings.overwrite)
    if settings.steps < 1 or settings.batch_size < 1 or settings.log_every < 1:
        raise ExperimentError("--steps, --batch-size and --log-every must be at least 1")
    examples, files = read_data(settings.data)
    train_set, held_set = split(examples, settings.eval_fraction, settings.seed)
    if settings.lr is None:
        settings = replace(settings, lr=LORA_LR if settings.lora else FULL_LR)

    import torch
    import transformers

    torch.manual_seed(settings.seed)
    m = load(settings)
    train_rows = [encode(m.tokenizer, e, settings.max_length) for e in train_set]
    held_rows = [encode(m.tokenizer, e, settings.max_length) for e in held_set]
    every = train_rows + held_rows
    record: dict[str, Any] = {
        "settings": asdict(settings),
        "base": settings.base or "embedded SmolLM2-135M-Instruct",
        "base_path": str(m.model.name_or_path),
        "data": files,
        "examples": {"total": len(every), "train": len(train_rows), "eval": len(held_rows)},
        "truncated": sum(r.truncated for r in every),
        "max_prompt_tokens": max(len(r.prompt) for r in every),
        "labels": {
            name: {a: sum(r.label == a for r in rows) for a in ANSWERS}
            for name, rows in (("all", every), ("train", train_rows), ("eval", held_rows))
        },
        "answer_tokens": {a: m.tokenizer.encode(a, add_special_tokens=False) for a in ANSWERS},
        "device": m.device,
        "dtype": str(m.model.dtype).removeprefix("torch."),
        "method": "lora" if settings.lora else "full",
        "versions": {"torch": torch.__version__, "transformers": transformers.__version__},
        "eval": {},
    }
    labels = record["labels"]["all"]
    log(
        f"{len(every)} examples ({labels['Yes']} Yes, {labels['No']} No): {len(train_rows)} to train, "
        f"{len(held_rows)} held out, {record['truncated']} truncated; {record['base_path']} on {m.device}"
    )
    try:
        with torch.enable_grad():  # the backend turns gradients off process-wide when it loads a model
            if held_rows:
                record["eval"]["before"] = evaluate(m, held_rows, settings.batch_size)
                log(f"held out before: {_scores(record['eval']['before'])}")
            if settings.gradient_checkpointing:
                m.model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
            if settings.lora:
                m.model = _with_lora(m.model, settings, record)
            else:
                m.model.requires_grad_(True)
            began = time.perf_counter()
            record["losses"] = _loop(m, train_rows, settings, log)
            record["steps"], record["seconds"] = settings.steps, {"train": round(time.perf_counter() - began, 2)}
            if held_rows:
                record["eval"]["after"] = evaluate(m, held_rows, settings.batch_size)
                log(f"held out after:  {_scores(record['eval']['after'])}")
    except torch.cuda.OutOfMemoryError:
        lora = "" if settings.lora else ", --lora"
        raise ExperimentError(
            f"out of GPU memory: lower --batch-size or --max-length, or pass --gradient-checkpointing{lora}"
        ) from None
    merged = m.model.merge_and_unload() if settings.lora else m.model
    if settings.gradient_checkpointing:
        merged.gradient_checkpointing_disable()
    _save(merged, m.tokenizer, record, settings, started)
    return record


def _with_lora(model: Any, settings: Settings, record: dict[str, Any]) -> Any:
    """The model with LoRA adapters on ``settings.lora_targets`` (only they are trained)."""
    import peft

    record["versions"]["peft"] = peft.__version__
    targets = settings.lora_targets if settings.lora_targets == "all-linear" else settings.lora_targets.split(",")
    lora = peft.LoraConfig(
        r=settings.lora_r,
        lora_alpha=settings.lora_alpha,
        lora_dropout=settings.lora_dropout,
        target_modules=targets,
        task_type="CAUSAL_LM",
    )
    with warnings.catch_warnings():  # peft asks transformers a deprecated question; not ours to fix
        warnings.filterwarnings("ignore", "`is_gradient_checkpointing` is deprecated", FutureWarning)
        return peft.get_peft_model(model, lora)


def _loop(m: Model, rows: Sequence[Encoded], settings: Settings, log: Callable[[str], None]) -> list[float]:
    """``settings.steps`` AdamW steps (linear warm-up over 5%, then linear decay); the loss of each."""
    import torch

    params = [p for p in m.model.parameters() if p.requires_grad]
    assert settings.lr is not None  # resolved by ``train``
    optimizer = torch.optim.AdamW(params, lr=settings.lr, weight_decay=0.0)
    steps, warmup = settings.steps, max(1, settings.steps // 20)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min((s + 1) / warmup, max(0.0, (steps - s) / max(1, steps - warmup)))
    )
    draw = _batches(rows, settings)
    losses: list[float] = []
    m.model.train()
    began = time.perf_counter()
    for step in range(1, steps + 1):
        logits, targets, _ = _answer_logits(m, draw())
        loss = torch.nn.functional.cross_entropy(logits, targets)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        optimizer.step()
        schedule.step()
        optimizer.zero_grad(set_to_none=True)
        losses.append(round(float(loss.detach()), 5))
        if step % settings.log_every == 0 or step in (1, steps):
            recent = losses[-settings.log_every :]
            log(
                f"step {step}/{steps}  loss {losses[-1]:.4f}  (mean of last {len(recent)}: "
                f"{sum(recent) / len(recent):.4f})  {time.perf_counter() - began:.1f} s"
            )
    m.model.eval()
    return losses


def _save(model: Any, tokenizer: Any, record: dict[str, Any], settings: Settings, started: float) -> None:
    """Writes into a scratch folder beside ``--out``, then moves it into place (never a half-written listener)."""
    out = Path(settings.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".{out.name}-", dir=out.parent))
    try:
        model.save_pretrained(scratch)
        tokenizer.save_pretrained(scratch)
        record["seconds"]["total"] = round(time.perf_counter() - started, 2)
        (scratch / "listener.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
        check_out(out, settings.overwrite)
        if out.exists():
            shutil.rmtree(out)
        scratch.rename(out)
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)
        raise


def _scores(scores: dict[str, float]) -> str:
    return (
        f"accuracy {scores['accuracy']:.3f} (balanced {scores['balanced_accuracy']:.3f}), "
        f"Yes-rate {scores['yes_rate']:.3f}, mean P(Yes) {scores['mean_p_yes']:.3f}, "
        f"loss {scores['loss']:.4f} on {scores['examples']:.0f}"
    )


def add_parser(commands: Any) -> None:
    run = commands.add_parser("train-listener", help="fine-tune HandRaiser's Yes/No listener (full, or LoRA)")
    run.add_argument("--data", nargs="+", required=True, metavar="JSONL", help="chat-format examples (one or more)")
    run.add_argument("--out", required=True, metavar="DIR", help="the model folder to write (listener=DIR)")
    run.add_argument("--base", metavar="ID_OR_PATH", help="hub id or folder (default: embedded SmolLM2-135M)")
    run.add_argument("--steps", type=int, default=100, help="optimizer steps (default 100)")
    run.add_argument("--batch-size", type=int, default=4)
    method = run.add_mutually_exclusive_group()
    method.add_argument("--full", dest="lora", action="store_false", help="train every weight (the paper's; default)")
    method.add_argument("--lora", dest="lora", action="store_true", help="LoRA adapters, merged (one GPU for 8B)")
    run.set_defaults(lora=False)
    run.add_argument("--lr", type=float, help="learning rate (default: 1e-5 full, 2e-4 LoRA)")
    run.add_argument("--lora-r", type=int, default=16)
    run.add_argument("--lora-alpha", type=int, default=32)
    run.add_argument("--lora-dropout", type=float, default=0.05)
    run.add_argument("--lora-targets", default="all-linear", help="all-linear, or module names comma-separated")
    run.add_argument("--max-length", type=int, default=2048, help="tokens; longer prompts lose their start")
    run.add_argument("--seed", type=int, default=0)
    run.add_argument("--device", choices=["auto", "cpu", "cuda", "mps"], default="auto")
    run.add_argument("--dtype", help="float32, bfloat16, float16 (default: bfloat16 on CUDA, float32 on CPU)")
    run.add_argument("--eval-fraction", type=float, default=0.1, help="held-out share, per label (default 0.1)")
    run.add_argument("--no-balance", dest="balance", action="store_false", help="uniform, not class-balanced, batches")
    run.add_argument("--gradient-checkpointing", action="store_true", help="less memory, slower (large models)")
    run.add_argument("--log-every", type=int, default=10, help="a progress line every N steps")
    run.add_argument("--overwrite", action="store_true", help="replace a non-empty --out")


def cmd_train_listener(args: argparse.Namespace, console: Console) -> int:
    settings = Settings(**{f.name: getattr(args, f.name) for f in fields(Settings)})
    record = train(settings, lambda line: console.print(line, markup=False, highlight=False, soft_wrap=True))
    before, after = record["eval"].get("before"), record["eval"].get("after")
    held = f"; held-out accuracy {before['accuracy']:.3f} -> {after['accuracy']:.3f}" if before and after else ""
    losses, seconds = record["losses"], record["seconds"]
    console.print(
        f"trained ({record['method']} fine-tuning) on {record['examples']['train']} examples, {record['steps']} steps: "
        f"{seconds['train']:.1f} s "
        f"(total {seconds['total']:.1f} s); loss {losses[0]:.4f} -> {losses[-1]:.4f}{held}\n"
        f"wrote {settings.out} (HandRaiser's learned policy: listener={settings.out})",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )
    return 0


COMMAND = Command("train-listener", add_parser, cmd_train_listener)
