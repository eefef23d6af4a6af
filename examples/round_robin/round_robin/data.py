"""The plugin's data set: five short riddles with three options each (``compare --data riddles=N``).

What it does: ``riddle_items(request)`` reads ``riddles.json`` (shipped in the
package) or the file ``--data-file riddles=PATH`` names (a JSON list of
``{"id", "question", "options", "answer"}``), checks every row where it
enters, and returns the first ``n`` as study items with stable keys.

What it does not do: shuffle or sample (five rows need neither) or download.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from debate_core import Question

if TYPE_CHECKING:
    from experiments.compare import Item
    from experiments.extensions import DataRequest


class RiddleError(ValueError):
    """A riddle file that cannot be read as riddles: the message names the row and what is wrong."""


def _rows(path: str | None) -> list[Any]:
    if path is None:
        text = resources.files("round_robin").joinpath("riddles.json").read_text(encoding="utf-8")
    else:
        text = Path(path).read_text(encoding="utf-8")
    rows = json.loads(text)
    if not isinstance(rows, list):
        raise RiddleError("a riddle file is a JSON list of objects")
    return rows


def _question(row: Any, index: int) -> tuple[str, Question]:
    if not isinstance(row, dict) or not {"id", "question", "options", "answer"} <= set(row):
        raise RiddleError(f"riddle {index}: an object with id, question, options and answer")
    options = row["options"]
    if not isinstance(options, list) or not 2 <= len(options) <= 26 or not all(isinstance(o, str) for o in options):
        raise RiddleError(f"riddle {index}: options are a list of 2 to 26 strings")
    try:
        return str(row["id"]), Question(text=str(row["question"]), options=tuple(options), answer=row["answer"])
    except ValueError as exc:
        raise RiddleError(f"riddle {index}: {exc}") from exc


def riddle_items(request: DataRequest) -> list[Item]:
    from experiments.compare import Item

    items = []
    for index, row in enumerate(_rows(request.path)[: request.n]):
        key, question = _question(row, index)
        items.append(Item("riddles", f"riddles:{key}", "riddles", question))
    return items
