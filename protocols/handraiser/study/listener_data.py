"""The listener's training data: chat-format JSON lines of Yes/No decisions, read, checked and split.

Each line is ``{"messages": [..., {"role": "assistant", "content": "Yes" | "No"}],
"label": "Yes" | "No", "meta": {...}}``: the prompt's messages (the
moderator's ``listen`` request: system, then user), then the assistant's
one-word answer; ``label``, when present, must equal that answer and ``meta``
is carried along unread. Blank lines are skipped.

What it does: ``read_data`` reads one or more files into ``Example`` records
(with each file's sha256 and example count), raising ``ExperimentError`` that
names the file and line of the first bad line; ``split`` holds out a
stratified share of each label. ``parse_line`` checks a single line, so a
sampler can validate what it writes.

What it does not do: tokenize or train (``train_listener``).
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from debate_core.backends.base import Message
from experiments.workers import ExperimentError

ANSWERS = ("Yes", "No")
ROLES = ("system", "user", "assistant")


@dataclass(frozen=True)
class Example:
    """One decision: the prompt's messages, the answer, and where it came from (``file:line``)."""

    messages: tuple[Message, ...]
    label: str
    where: str


def parse_line(text: str, where: str) -> Example:
    """One JSON line as an ``Example``; ``ExperimentError`` naming ``where`` if it is not one."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ExperimentError(f"{where}: not valid JSON ({error.msg})") from None
    messages = data.get("messages") if isinstance(data, dict) else None
    if not isinstance(messages, list) or len(messages) < 2:
        raise ExperimentError(f'{where}: expected an object with "messages": a prompt, then the assistant answer')
    for m in messages:
        if not (isinstance(m, dict) and m.get("role") in ROLES and isinstance(m.get("content"), str)):
            raise ExperimentError(f"{where}: every message needs a role ({', '.join(ROLES)}) and a string content")
    last = messages[-1]
    if last["role"] != "assistant" or last["content"] not in ANSWERS:
        raise ExperimentError(f'{where}: the last message must be the assistant answering exactly "Yes" or "No"')
    label = data.get("label", last["content"])
    if label != last["content"]:
        raise ExperimentError(f"{where}: label {label!r} differs from the assistant answer {last['content']!r}")
    prompt = tuple(Message(m["role"], m["content"]) for m in messages[:-1])
    return Example(prompt, last["content"], where)


def read_data(paths: Sequence[str | Path]) -> tuple[list[Example], list[dict[str, Any]]]:
    """Every example of the files, and per file its path, sha256 and example count."""
    if not paths:
        raise ExperimentError("no data: pass --data FILE.jsonl")
    examples: list[Example] = []
    files: list[dict[str, Any]] = []
    for name in paths:
        path = Path(name)
        if not path.is_file():
            raise ExperimentError(f"no data file {path}")
        raw = path.read_bytes()
        found = [
            parse_line(line, f"{path}:{number}")
            for number, line in enumerate(raw.decode("utf-8", errors="replace").splitlines(), 1)
            if line.strip()
        ]
        if not found:
            raise ExperimentError(f"data file {path} has no examples")
        examples.extend(found)
        files.append({"path": str(path), "sha256": hashlib.sha256(raw).hexdigest(), "examples": len(found)})
    return examples, files


def split(examples: Sequence[Example], fraction: float, seed: int) -> tuple[list[Example], list[Example]]:
    """A stratified split: about ``fraction`` of each label held out, at least one example left to train on."""
    if not 0 <= fraction < 1:
        raise ExperimentError(f"--eval-fraction must be in [0, 1), got {fraction}")
    rng = random.Random(seed)
    train: list[Example] = []
    held: list[Example] = []
    for label in ANSWERS:
        group = [e for e in examples if e.label == label]
        rng.shuffle(group)
        cut = round(fraction * len(group))
        held.extend(group[:cut])
        train.extend(group[cut:])
    if not train:
        train, held = held[:1], held[1:]
    rng.shuffle(train)
    return train, held
