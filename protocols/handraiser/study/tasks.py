"""HandRaiser's three tasks as the study commands see them: the protocol, the listener's seat, the data set.

What it does: ``TASKS`` names, per task of the paper (§4.1), the protocol
(``handraiser``: the MMLU debate, ``pictionary``: Text Pictionary,
``scheduling``: Meeting Scheduling), the role whose seat listens and may
interrupt (the moderator, the guesser, the traveler), the data set a study
draws its cases from (``mmlu``, ``pictionary``, ``scheduling``), the short
name the paper's tables use (MMLU-D, TP, MS) and the name a listener trained
on that task goes by (``debate``, ``pictionary``, ``scheduling``).
``task(name)`` finds one by any of its names; ``task_of_system`` reads it from a
study's system (``pictionary/learned:...``); ``listener_of(config)`` is the
agent in the listening seat of a debate's configuration.

What it does not do: run anything (``tree``, ``transfer``) or define the tasks
(their protocols do).
"""

from __future__ import annotations

from dataclasses import dataclass

from debate_core.config import DebateConfig
from experiments.workers import ExperimentError


@dataclass(frozen=True)
class Task:
    protocol: str  # the protocol, the prefix of a study's systems
    listener: str  # the role that listens chunk by chunk and may interrupt
    dataset: str  # where a study's cases come from (``--data NAME=N``)
    short: str  # the paper's column name (Tables 1, 2 and 6)
    alias: str  # what a listener trained on the task is called (``--listeners debate=PATH``)
    title: str


TASKS = (
    Task("pictionary", "guesser", "pictionary", "TP", "pictionary", "Text Pictionary"),
    Task("scheduling", "traveler", "scheduling", "MS", "scheduling", "Meeting Scheduling"),
    Task("handraiser", "moderator", "mmlu", "MMLU-D", "debate", "MMLU debate"),
)  # the paper's order of columns: TP, MS, MMLU-D


def task(name: str) -> Task:
    """The task called ``name`` (its protocol, its alias, its data set or its short name, any case)."""
    wanted = name.strip().lower()
    for found in TASKS:
        if wanted in (found.protocol, found.alias, found.dataset, found.short.lower()):
            return found
    known = ", ".join(f"{t.alias} ({t.protocol})" for t in TASKS)
    raise ExperimentError(f"no HandRaiser task {name!r} (tasks: {known})")


def task_of_system(system: str) -> Task | None:
    """The task a study's system runs (its protocol), or None for another protocol's system."""
    protocol = system.partition("/")[0]
    return next((t for t in TASKS if t.protocol == protocol), None)


def listener_of(config: DebateConfig, found: Task) -> str:
    """The name of the agent in the task's listening seat."""
    names = [agent.name for agent in config.agents if agent.role == found.listener]
    if len(names) != 1:
        raise ExperimentError(f"{found.protocol}: expected one {found.listener}, found {names or 'none'}")
    return names[0]
