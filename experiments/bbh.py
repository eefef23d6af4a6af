"""BIG-Bench Hard's 23 tasks as the engine's questions: 20 read from BIG-bench's task files, 3 generated.

What it does: ``load_bbh(tasks)`` (or ``load_task(task)``) gives each task's
questions. A task of ``TASK_FILES`` is read from its ``task.json`` in, in
order of preference, a local folder or file you name (``<task>/task.json``,
``<task>.json``, or BIG-bench's own ``benchmark_tasks`` layout), the cache
(``$DEBATE_DATA_CACHE/bigbench/<task>/``, by default
``~/.cache/interruptible-debate/bigbench/<task>/``), or, when allowed, a fresh
copy: ``fetch_bbh()`` takes the source archive of ``bigbench==1.0.0`` (an
archive you name, ``$DEBATE_BIGBENCH_ARCHIVE``, one kept in the cache, else a
download from the package index through ``sdist``: sha256-checked, nothing
run) and extracts every task file it needs in one pass, each checked before it
replaces anything. BBH's three tasks that BIG-bench ships only as Python
generators (``GENERATED``: boolean_expressions, multistep_arithmetic_two,
web_of_lies) are made by ``bbh_generated`` from their definitions: a fixed
pool of ``POOL_SIZE`` questions (``GENERATION_SEED``), never a file.
``TASKS`` names all 27 (BBH's 23 tasks, logical_deduction and
tracking_shuffled_objects as their three subtasks each, named
``logical_deduction_three_objects`` and so on); ``TASK_GROUPS``,
``group_mean`` and ``by_table_task`` fold the subtasks back into the task
the ACE paper reports (Table 2's TSO: the mean of 3, 5 and 7 objects).
``sample`` draws a seeded sample per task: ``n``, or all of a task with fewer
(``BBH_SIZE``: 250, BBH's size). ``fetch_and_count`` is ``fetch-bbh``'s work.

Each usable example becomes a ``BbhQuestion`` whose ``question()`` is the
engine's ``Question`` (``bbh_rows`` has the rules): its text is the task's
``task_prefix``, a blank line, then ``example_input_prefix`` and the
example's ``input``. An example with ``target_scores`` is multiple-choice
(options in file order, shuffled for ``SHUFFLED``'s two tasks whose files
list the right option first; number words over their digit twins; the
``target``'s option where several score highest); one with more options than
a ``Question`` takes (dyck_languages) or with only a ``target`` (its digits
entry where a list has one, as BBH poses object_counting) is free-form. A row
that cannot be used is skipped and counted in the log; a file without one
usable row is a ``BbhError``.

What it does not do: reproduce BBH's own 250-question selections (a
``--bbh 250`` sample is drawn here from BIG-bench's rows, or from the
generated pool) or its few-shot prompts, install or import ``bigbench``,
print (progress goes to the logger ``experiments``; ``fetch_and_count``
returns its lines), report a study (``compare_report``), or touch the network
unless a task is not cached and ``fetch`` is true.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import random
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from experiments.bbh_generated import GENERATED, GENERATION_SEED, POOL_SIZE, generate
from experiments.bbh_rows import SHUFFLED, BbhError, BbhQuestion, parse_task
from experiments.sdist import SdistError, archive_name, extract_members, named_file, with_archive

__all__ = ["GENERATED", "SHUFFLED", "BbhError", "BbhQuestion", "parse_task"]

logger = logging.getLogger("experiments")

PROJECT, VERSION = "bigbench", "1.0.0"
REQUIREMENT = f"{PROJECT}=={VERSION}"
ARCHIVE_NAME = archive_name(PROJECT, VERSION)
ARCHIVE_ENV = "DEBATE_BIGBENCH_ARCHIVE"
CACHE_ENV = "DEBATE_DATA_CACHE"
TASK_FILE = "task.json"
TASKS_ROOT = f"{PROJECT}-{VERSION}/bigbench/benchmark_tasks"

_SUBTASKS = {
    "logical_deduction": ("three_objects", "five_objects", "seven_objects"),
    "tracking_shuffled_objects": ("three_objects", "five_objects", "seven_objects"),
}
_PLAIN = (
    "causal_judgment",
    "date_understanding",
    "disambiguation_qa",
    "dyck_languages",
    "formal_fallacies_syllogisms_negation",
    "geometric_shapes",
    "hyperbaton",
    "logical_deduction",
    "movie_recommendation",
    "navigate",
    "object_counting",
    "penguins_in_a_table",
    "reasoning_about_colored_objects",
    "ruin_names",
    "salient_translation_error_detection",
    "snarks",
    "sports_understanding",
    "temporal_sequences",
    "tracking_shuffled_objects",
    "word_sorting",
)
# BBH's name of each task read from a file -> its task.json in the source archive.
TASK_FILES: dict[str, str] = {
    name: f"{TASKS_ROOT}/{path}/{TASK_FILE}"
    for task in _PLAIN
    for name, path in (
        [(f"{task}_{sub}", f"{task}/{sub}") for sub in _SUBTASKS[task]] if task in _SUBTASKS else [(task, task)]
    )
}
_ALIASES = {"multistep_arithmetic": "multistep_arithmetic_two"}
# Table 1 reports these tasks as the mean of their subtasks (Table 2's TSO: tracking_shuffled_objects').
TASK_GROUPS: dict[str, tuple[str, ...]] = {
    task: tuple(f"{task}_{sub}" for sub in subtasks) for task, subtasks in _SUBTASKS.items()
}
# Every task name, in BBH's (alphabetical) order: 27 names, BBH's 23 tasks with the subtasks expanded.
TASKS: tuple[str, ...] = tuple(
    name for task in sorted((*_PLAIN, *GENERATED)) for name in TASK_GROUPS.get(task, (task,))
)
BBH_SIZE = 250  # BBH's questions per task (fewer where the task has fewer): ``--bbh 250``
# The examples in each task.json of bigbench==1.0.0 (before any row is skipped).
EXPECTED_EXAMPLES: dict[str, int] = {
    "causal_judgment": 190,
    "date_understanding": 369,
    "disambiguation_qa": 258,
    "dyck_languages": 1000,
    "formal_fallacies_syllogisms_negation": 14200,
    "geometric_shapes": 360,
    "hyperbaton": 50000,
    "logical_deduction_three_objects": 300,
    "logical_deduction_five_objects": 500,
    "logical_deduction_seven_objects": 700,
    "movie_recommendation": 500,
    "navigate": 1000,
    "object_counting": 1000,
    "penguins_in_a_table": 149,
    "reasoning_about_colored_objects": 2000,
    "ruin_names": 448,
    "salient_translation_error_detection": 998,
    "snarks": 181,
    "sports_understanding": 1000,
    "temporal_sequences": 1000,
    "tracking_shuffled_objects_three_objects": 750,
    "tracking_shuffled_objects_five_objects": 1250,
    "tracking_shuffled_objects_seven_objects": 1750,
    "word_sorting": 1900,
}
# The four tasks of the ACE paper's ablation (Table 2): TSO, DU, PIA, GS.
DEFAULT_TASKS = (
    "tracking_shuffled_objects_three_objects",
    "date_understanding",
    "penguins_in_a_table",
    "geometric_shapes",
)
# --- task names ----------------------------------------------------------------------


def check_tasks(tasks: Iterable[str]) -> tuple[str, ...]:
    """``tasks`` without repeats, each a supported task; a ``BbhError`` naming the first that is not."""
    names = tuple(dict.fromkeys(task.strip() for task in tasks))
    for task in names:
        if task not in TASKS:
            raise BbhError(_unknown(task))
    return names


def _unknown(task: str) -> str:
    if task in _ALIASES:
        return f"BBH task {task!r} is BIG-bench's; BBH's is {_ALIASES[task]}"
    subtasks = [name for name in TASKS if name.startswith(f"{task}_")]
    if subtasks:
        return f"BBH task {task!r} has subtasks: name one of {', '.join(subtasks)}"
    return f"unknown BBH task {task!r}; the supported tasks are {', '.join(TASKS)}"


# --- files -----------------------------------------------------------------------------


def read_task(path: Path, task: str, *, source: str | None = None) -> list[BbhQuestion]:
    """The usable questions of one task file; a ``BbhError`` when it cannot be read or has none.

    ``source`` names the file in messages (default: ``path``).
    """
    source = source or str(path)
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise BbhError(f"cannot read BBH task {task} from {source}: {error}") from error
    except json.JSONDecodeError as error:
        raise BbhError(f"cannot read BBH task {task} from {source}: not JSON ({error})") from error
    questions = parse_task(document, task, source=source)
    if not questions:
        raise BbhError(f"no usable question in {source} (BBH task {task}): every example was skipped, see the log")
    logger.info("BBH %s: %d questions from %s", task, len(questions), source)
    return questions


def default_cache() -> Path:
    """``$DEBATE_DATA_CACHE/bigbench``, by default ``~/.cache/interruptible-debate/bigbench``."""
    root = os.environ.get(CACHE_ENV)
    return (Path(root).expanduser() if root else Path.home() / ".cache" / "interruptible-debate") / "bigbench"


def _folder(cache: str | Path | None) -> Path:
    return Path(cache).expanduser() if cache else default_cache()


def cached_path(task: str, cache: str | Path | None = None) -> Path:
    """Where the cache keeps ``task``'s task.json."""
    return _folder(cache) / task / TASK_FILE


def _in_folder(folder: Path, task: str) -> Path:
    """``task``'s file in a folder the user named: ``<task>/task.json``, ``<task>.json`` or BIG-bench's layout."""
    inside = TASK_FILES[task].removeprefix(f"{TASKS_ROOT}/")
    candidates = [folder / task / TASK_FILE, folder / f"{task}.json", folder / inside]
    found = next((path for path in candidates if path.is_file()), None)
    if found is None:
        raise BbhError(f"no file for BBH task {task} in {folder} (looked for {', '.join(map(str, candidates))})")
    return found


def load_task(
    task: str,
    *,
    path: str | Path | None = None,
    cache: str | Path | None = None,
    fetch: bool = True,
    archive: str | Path | None = None,
) -> list[BbhQuestion]:
    """Every usable question of ``task``, in file order (see the module docstring for where it is read from).

    ``path``: a task file, or a folder holding task files; nothing is then cached or fetched.
    """
    return load_bbh([task], path=path, cache=cache, fetch=fetch, archive=archive)[check_tasks([task])[0]]


def load_bbh(
    tasks: Iterable[str] = DEFAULT_TASKS,
    *,
    path: str | Path | None = None,
    cache: str | Path | None = None,
    fetch: bool = True,
    archive: str | Path | None = None,
) -> dict[str, list[BbhQuestion]]:
    """Each task's usable questions, in file order; the tasks not cached are fetched together, in one pass.

    A generated task (``GENERATED``) is its pool: ``generate(task)``, ``POOL_SIZE`` questions made with
    ``GENERATION_SEED``; no file is read for it.
    """
    names = check_tasks(tasks)
    made = {task: generate(task) for task in names if task in GENERATED}
    files = [task for task in names if task not in made]
    loaded = _load_files(files, path=path, cache=cache, fetch=fetch, archive=archive) if files else {}
    return {task: made[task] if task in made else loaded[task] for task in names}


def _load_files(
    names: Sequence[str], *, path: str | Path | None, cache: str | Path | None, fetch: bool, archive: str | Path | None
) -> dict[str, list[BbhQuestion]]:
    if path:
        given = Path(path).expanduser()
        if not given.is_dir():
            if len(names) != 1:
                raise BbhError(f"{given} is not a folder: name a folder of task files to load {len(names)} tasks")
            return {names[0]: read_task(given, names[0])}
        return {task: read_task(_in_folder(given, task), task) for task in names}
    missing = [task for task in names if not cached_path(task, cache).is_file()]
    fetched: dict[str, list[BbhQuestion]] = {}
    if missing and not fetch:
        raise BbhError(
            f"BBH tasks not cached in {_folder(cache)}: {', '.join(missing)}. Run `python -m experiments fetch-bbh`, "
            f"or name a folder of task files (--bbh-data)"
        )
    if missing:
        fetched = fetch_bbh(missing, cache, archive=archive)
    return {task: fetched[task] if task in fetched else read_task(cached_path(task, cache), task) for task in names}


def sample(questions: Sequence[BbhQuestion], n: int, *, seed: int = 0) -> list[BbhQuestion]:
    """``n`` questions of each task among ``questions``, drawn without replacement by a generator seeded by
    ``seed`` and the task, so one task's draw does not depend on which other tasks are asked for; every
    question of a task that has fewer than ``n`` (logged), as BBH took all of a task with fewer than 250."""
    by_task: dict[str, list[BbhQuestion]] = {}
    for question in questions:
        by_task.setdefault(question.task, []).append(question)
    chosen: list[BbhQuestion] = []
    for task, group in by_task.items():
        if n > len(group):
            logger.info("BBH %s: %d questions asked for, all %d taken", task, n, len(group))
        digest = hashlib.sha256(f"{seed}:{task}".encode()).hexdigest()
        chosen += random.Random(int(digest[:16], 16)).sample(group, min(n, len(group)))
    return chosen


# --- BBH's 23 tasks ---------------------------------------------------------------------------


def table_task(task: str) -> str:
    """The task of BBH's 23 that ``task`` is or belongs to (a subtask: its group, ``TASK_GROUPS``)."""
    return next((group for group, members in TASK_GROUPS.items() if task in members), task)


def group_mean(accuracies: Mapping[str, float], group: str) -> float | None:
    """A group's accuracy as Table 1 and 2 report it (TSO: the unweighted mean of its 3, 5 and 7 objects), from
    per-task accuracies; None unless every subtask has one."""
    if group not in TASK_GROUPS:
        raise BbhError(f"no BBH task group {group!r} (the groups: {', '.join(TASK_GROUPS)})")
    found = [accuracies[task] for task in TASK_GROUPS[group] if task in accuracies]
    return sum(found) / len(found) if found and len(found) == len(TASK_GROUPS[group]) else None


def by_table_task(accuracies: Mapping[str, float]) -> dict[str, float]:
    """Per-task accuracies keyed by BBH's 23 tasks: a complete group's subtasks replaced by their mean
    (``group_mean``), an incomplete group's kept as they are."""
    table: dict[str, float] = {}
    for task, accuracy in accuracies.items():
        group = table_task(task)
        mean = group_mean(accuracies, group) if group != task else None
        table[task if mean is None else group] = accuracy if mean is None else mean
    return table


def fetch_and_count(
    tasks: Iterable[str] = TASKS,
    cache: str | Path | None = None,
    *,
    archive: str | Path | None = None,
    keep_archive: bool = False,
    force: bool = False,
) -> list[str]:
    """``fetch-bbh``: the file tasks not cached (every one with ``force``) extracted in one pass, then every
    task loaded and counted; one line per task (its usable questions, where from, its BBH-sized sample), then
    a summary."""
    names = check_tasks(tasks)
    files = [task for task in names if task not in GENERATED]
    wanted = [task for task in files if force or not cached_path(task, cache).is_file()]
    fetched = fetch_bbh(wanted, cache, archive=archive, keep_archive=keep_archive) if wanted else {}
    lines = []
    for task in names:
        if task in GENERATED:
            count, where = len(generate(task)), f"generated (seed {GENERATION_SEED}, pool of {POOL_SIZE})"
        else:
            count = len(fetched[task] if task in fetched else read_task(cached_path(task, cache), task))
            where = "extracted now" if task in fetched else "cached"
        lines.append(f"{task}: {count} questions ({min(count, BBH_SIZE)} in a --bbh {BBH_SIZE} sample), {where}")
    generated = sum(task in GENERATED for task in names)
    lines.append(
        f"{len(names)} task names, {len({table_task(task) for task in names})} of BBH's 23 tasks: "
        f"{len(files)} from task files ({len(wanted)} extracted now) in {_folder(cache)}, {generated} generated"
    )
    return lines


# --- fetching ------------------------------------------------------------------------------


def fetch_bbh(
    tasks: Iterable[str] = tuple(TASK_FILES),
    cache: str | Path | None = None,
    *,
    archive: str | Path | None = None,
    keep_archive: bool = False,
) -> dict[str, list[BbhQuestion]]:
    """Extract ``tasks``' task files into the cache in one pass over bigbench's source archive; their questions.

    The archive is ``archive``, else ``$DEBATE_BIGBENCH_ARCHIVE``, else one kept in the cache by an earlier
    fetch (``cache/bigbench-1.0.0.tar.gz``), else downloaded (and deleted unless ``keep_archive``).
    Each task file is checked (it must hold a usable question) before any cached file is replaced.
    """
    names = check_tasks(tasks)
    if generated := [task for task in names if task in GENERATED]:
        raise BbhError(f"BBH tasks {', '.join(generated)} are generated (bbh_generated), not fetched")
    folder = _folder(cache)
    try:
        given = named_file(archive, ARCHIVE_ENV, "--archive", "archive", ARCHIVE_NAME)
    except SdistError as error:
        raise BbhError(str(error)) from None
    if given is not None:
        return _extract(given, folder, names)

    def failed(error: SdistError) -> BbhError:
        return BbhError(
            f"cannot download {REQUIREMENT} (BIG-bench's task files) from the package index ({error}). "
            f"Check the network and pip's configuration, or name a downloaded {ARCHIVE_NAME} (--archive or "
            f"${ARCHIVE_ENV}), or a folder of task files (--bbh-data), or put <task>/task.json under {folder}"
        )

    return with_archive(
        PROJECT, VERSION, folder, lambda found: _extract(found, folder, names), keep_archive=keep_archive, failed=failed
    )


def _extract(archive: Path, folder: Path, tasks: Sequence[str]) -> dict[str, list[BbhQuestion]]:
    """``tasks``' files out of ``archive`` into ``folder/<task>/task.json``, all checked before any is replaced."""
    by_member = {TASK_FILES[task]: task for task in tasks}
    questions: dict[str, list[BbhQuestion]] = {}

    def check(member: str, path: Path) -> int:
        task = by_member[member]
        questions[task] = read_task(path, task, source=f"{archive}:{member}")
        total = len(json.loads(path.read_text(encoding="utf-8"))["examples"])
        if total != EXPECTED_EXAMPLES.get(task, total):
            logger.warning("BBH %s: %d examples in %s, expected %d", task, total, archive, EXPECTED_EXAMPLES[task])
        return total

    logger.info("BBH: extracting %d task files from %s", len(tasks), archive)
    try:
        extract_members(archive, {member: cached_path(task, folder) for member, task in by_member.items()}, check)
    except SdistError as error:
        raise BbhError(str(error)) from None
    return questions
