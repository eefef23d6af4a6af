"""The act library of ACE (ADAL) as data: read, checked and described for prompts and forms.

What it does: ``load_library(path)`` reads a TOML file of ``[[act]]`` entries
(name, orientation ``self`` or ``peer``, description, example), by default the
package's ``acts.toml``, and returns an ``ActLibrary``: the acts in file
order, those of each orientation, ``describe(orientation)`` (the lines a
prompt lists) and ``find(name)``. A file that is missing, not TOML, or holds
an act without a field, a name that is not a lowercase identifier, a
duplicate name, an unknown orientation, or no act of one orientation is
refused with a ``ConfigError`` naming the file and the entry, before any
debate starts.

What it does not do: choose acts (debaters do, or the ``no_compose``
ablation at random in ``loop``) or word the prompts around them (``prompts/``).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Literal

from debate_core.errors import ConfigError

Orientation = Literal["self", "peer"]
ORIENTATIONS: tuple[Orientation, ...] = ("self", "peer")
_NAME = re.compile(r"^[a-z][a-z0-9_]{0,31}$")
MAX_TEXT = 600


@dataclass(frozen=True, slots=True)
class Act:
    """One discussion act: what it is called, whom it is about, what it means, an example."""

    name: str
    orientation: Orientation
    description: str
    example: str


@dataclass(frozen=True, slots=True)
class ActLibrary:
    """The acts a debater composes its move from, in file order."""

    acts: tuple[Act, ...]
    source: str

    def of(self, orientation: Orientation) -> tuple[Act, ...]:
        return tuple(act for act in self.acts if act.orientation == orientation)

    def names(self, orientation: Orientation) -> tuple[str, ...]:
        return tuple(act.name for act in self.of(orientation))

    def find(self, name: str) -> Act | None:
        return next((act for act in self.acts if act.name == name), None)

    def describe(self, orientation: Orientation) -> str:
        """One line per act: ``- name: description (e.g. "example")``."""
        return "\n".join(f'- {a.name}: {a.description} (e.g. "{a.example}")' for a in self.of(orientation))


def _act(entry: object, where: str) -> Act:
    if not isinstance(entry, dict):
        raise ConfigError(f"{where}: an act is a table with name, orientation, description and example")
    missing = [key for key in ("name", "orientation", "description", "example") if not isinstance(entry.get(key), str)]
    if missing:
        raise ConfigError(f"{where}: the act has no {missing[0]} (text)")
    unknown = sorted(set(entry) - {"name", "orientation", "description", "example"})
    if unknown:
        raise ConfigError(f"{where}: unknown field {unknown[0]!r}")
    name = entry["name"].strip()
    if not _NAME.match(name):
        raise ConfigError(f"{where}: act name {name!r} must be lowercase letters, digits or _ (32 at most)")
    orientation = entry["orientation"].strip()
    if orientation not in ORIENTATIONS:
        raise ConfigError(f"{where}: act {name!r} has orientation {orientation!r}; use 'self' or 'peer'")
    texts = [" ".join(entry[key].split()) for key in ("description", "example")]
    if any(not text or len(text) > MAX_TEXT for text in texts):
        raise ConfigError(f"{where}: act {name!r} needs a description and an example of 1-{MAX_TEXT} characters")
    return Act(name, orientation, texts[0], texts[1])  # type: ignore[arg-type]


def parse_library(text: str, source: str) -> ActLibrary:
    """The library in TOML ``text`` (``source`` names it in errors); raises ``ConfigError``."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"act library {source}: not TOML ({error})") from None
    entries = data.get("act")
    if not isinstance(entries, list) or not entries:
        raise ConfigError(f"act library {source}: no [[act]] entries")
    acts = tuple(_act(entry, f"act library {source}, act {i + 1}") for i, entry in enumerate(entries))
    seen: set[str] = set()
    for act in acts:
        if act.name in seen:
            raise ConfigError(f"act library {source}: the act {act.name!r} appears twice")
        seen.add(act.name)
    for orientation in ORIENTATIONS:
        if not any(act.orientation == orientation for act in acts):
            raise ConfigError(f"act library {source}: no act with orientation {orientation!r}")
    return ActLibrary(acts, source)


@cache
def _packaged() -> ActLibrary:
    text = (resources.files("protocols.ace") / "acts.toml").read_text(encoding="utf-8")
    return parse_library(text, "acts.toml (built in)")


def load_library(path: str | None = None) -> ActLibrary:
    """The library at ``path`` (a TOML file), or the package's own; raises ``ConfigError``."""
    if not path:
        return _packaged()
    file = Path(path).expanduser()
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"cannot read the act library {file}: {error}") from None
    return parse_library(text, str(file))
