"""What a comparison's debates ran under, for its report: the sentence segmenter and each system's parameters.

What it does: ``segmenter_text(spec, found)`` names the sentence segmenter
the study asked for (``CompareSpec.segmenter``) and the unit each system's
finished debates recorded (``DebateStarted.segmenter``: the segmenter's name,
such as ``pysbd+rules`` or ``spacy``, or a protocol's own unit: characters,
tokens, a line, the whole message), systems grouped by unit.
``not_recorded(spec)`` is the report's warning for a study stored before each
system's parameters were recorded (``spec_changes``). ``section(store, spec,
runs)`` writes the report's "Parameters": each system's resolved parameters
(defaults filled) as the specification recorded them, or, where it recorded
none, as its finished debates agree on them; then every parameter whose
values differ between a system's finished debates, or from the record, with
how many debates ran with each value, read from the debates themselves
(``Store.debate_params``). A protocol's study preparation may set a parameter
per question (it then differs by design); any other listed there means the
study mixes set-ups.

What it does not do: check or refuse a rerun (``spec_changes``), or know any
protocol: the parameters are the ones the debates and the specification hold.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from experiments.compare import CompareSpec
from experiments.compare_outcomes import Outcome

if TYPE_CHECKING:
    from storage import Store
    from storage.experiments import RunRecord

SHOWN_VALUES = 6  # distinct values listed per parameter that differs; the rest counted


def segmenter_text(spec: CompareSpec, found: Sequence[Outcome]) -> str:
    """The header's clause: the segmenter asked for, and the unit each system's debates recorded."""
    asked = f"sentence segmenter `{spec.segmenter}`"
    by_system: dict[str, Counter[str]] = {}
    for outcome in found:
        by_system.setdefault(outcome.system, Counter())[outcome.segmenter or "?"] += 1
    if not by_system:
        return asked + " (no finished debate has recorded its unit yet)"
    groups: dict[str, list[str]] = {}
    for system in spec.systems:
        if system in by_system:
            units = by_system[system]
            shown = ", ".join(f"`{u}`" + (f" ({n})" if len(units) > 1 else "") for u, n in units.most_common())
            groups.setdefault(shown, []).append(system)
    recorded = "; ".join(f"{units} for {', '.join(systems)}" for units, systems in groups.items())
    return f"{asked}, the unit each system's debates recorded: {recorded}"


def not_recorded(spec: CompareSpec) -> list[str]:
    """The header's warning for a study whose specification does not record its systems' parameters."""
    if spec.system_params is not None:
        return []
    return [
        "",
        "**Parameters not recorded.** This study was stored before each system's resolved parameters were recorded "
        "with it: what its debates ran under is known only from the debates themselves (see *Parameters* below), "
        "and if it was resumed after a protocol's default changed, its debates may mix two set-ups.",
    ]


def _cell(value: Any) -> str:
    """A value as ``--param`` takes it (strings bare, the rest JSON), safe in a table cell."""
    text = value if isinstance(value, str) else json.dumps(value)
    return text.replace("|", "\\|")


def section(store: Store, spec: CompareSpec, runs: Sequence[RunRecord]) -> list[str]:
    """The report's "Parameters" section (nothing for a study with no system)."""
    recorded_by_debate = store.debate_params(spec.experiment_id)
    debates: dict[str, list[dict[str, Any]]] = {}
    for run in runs:
        if run.debate_id in recorded_by_debate:
            debates.setdefault(run.condition, []).append(recorded_by_debate[run.debate_id])
    record = spec.system_params
    lines = [
        "",
        "## Parameters",
        "",
        "Each system's protocol parameters with every default filled, "
        + (
            "as the study recorded them when it began (a rerun whose parameters differ is refused)."
            if record is not None
            else "as its finished debates recorded them (the study's specification did not record them; a parameter "
            "whose debates differ is marked *varies*)."
        ),
        "",
        "| system | parameters |",
        "|---|---|",
    ]
    differing: list[str] = []
    for system in spec.systems:
        values: dict[str, Counter[str]] = {}
        for params in debates.get(system, []):
            for key, value in params.items():
                values.setdefault(key, Counter())[json.dumps(value, sort_keys=True)] += 1
        if record is not None:
            shown = {key: _cell(value) for key, value in record.get(system, {}).items()}
        else:
            shown = {
                key: _cell(json.loads(next(iter(counts)))) if len(counts) == 1 else "*varies*"
                for key, counts in values.items()
            }
        cells = ", ".join(
            f"`{key}={value}`" if value != "*varies*" else f"`{key}` {value}" for key, value in shown.items()
        )
        lines.append(f"| {system} | {cells or '(none recorded)'} |")
        for key, counts in values.items():
            expected = record.get(system, {}).get(key) if record is not None else None
            same = record is not None and set(counts) == {json.dumps(expected, sort_keys=True)}
            if same or (record is None and len(counts) == 1):
                continue
            listed = [f"`{_cell(json.loads(v))}` ({n})" for v, n in counts.most_common(SHOWN_VALUES)]
            more = len(counts) - SHOWN_VALUES
            differing.append(f"| {system} | {key} | {', '.join(listed)}{f', and {more} more' if more > 0 else ''} |")
    if not differing:
        return [
            *lines,
            "",
            "Every finished debate of a system ran with the same parameters"
            + (", the ones recorded." if record is not None else "."),
        ]
    return [
        *lines,
        "",
        "Parameters whose values differ between a system's finished debates"
        + (" or from the record" if record is not None else "")
        + ", with the debates that ran with each. A protocol's study preparation may set one per question "
        "(it then differs by design); any other listed here means the study mixes set-ups.",
        "",
        "| system | parameter | values (debates) |",
        "|---|---|---|",
        *differing,
    ]
