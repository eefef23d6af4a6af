"""What a Text Pictionary role is shown when it is asked to act.

What it does: ``PictionaryView`` bundles one request's view: the role and
title, the seat's persona and private brief, the secret entity (the
describer's view only: the guesser's is empty), the public record so far
(``transcript``: one line per description, guess or question, a cut
description ending where it was cut), what the guesser has heard of the
description being given now (``partial``, for its decision), whether the
guesser cut the last description off, the round, and whether the describer
was asked to be concise. ``CUT_MARK`` marks a cut description in the record.

What it does not do: hold anything undisclosed: the record has what was said
in public, and only the describer's view names the secret.
"""

from __future__ import annotations

from dataclasses import dataclass

CUT_MARK = "[cut off by the guesser]"


@dataclass(frozen=True, slots=True)
class PictionaryView:
    """One role's view at one request (see the module docstring)."""

    agent: str
    role: str
    title: str
    persona: str = ""
    brief: str = ""
    entity: str = ""
    transcript: tuple[str, ...] = ()
    partial: str = ""
    cut: bool = False
    concise: bool = False
    round: int = 1
    max_rounds: int = 10
