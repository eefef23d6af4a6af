"""Each system's protocol parameters, resolved and recorded with a comparison, and checked when it is rerun.

What it does: ``resolved_params(spec)`` gives each system of a ``CompareSpec``
its protocol's ``Params`` with every default filled in, after the study's
``params``, the system's own overrides and the shared settings its protocol
takes (``CompareSpec.params_for``), as JSON values; an invalid value stops
there, naming the system. ``recorded(spec)`` is the specification with them in
``system_params``: what ``CompareRunner`` stores, so a protocol's default that
changes later in the code cannot slip into a study begun before.
``check(stored, spec, debates)`` compares a stored specification's parameters
with a rerun's: a parameter whose value changed (a protocol's default changed,
or another ``--param``) refuses the rerun, naming the system, the parameter,
old -> new, and the ``--param PROTOCOL.KEY=VALUE`` that resumes the study as it
began; a parameter a protocol gained since (not in the record, so not known
to the debates before) or lost is a warning. A specification stored before
the parameters were recorded (no ``system_params``: unknown) is checked
against what its finished debates recorded instead (``debate_params``: each
debate's resolved parameters, stored with it, less those its question's study
preparation set): one value, the same in every finished debate of a system,
that differs from the rerun's refuses it as above; values its debates already
mix are a warning (refusing would not unmix them: the report lists them); the
missing record itself is a warning, and with no finished debate there is
nothing to mix. Such a specification is not rewritten: the report says its
parameters were not recorded.

What it does not do: compare the rest of a specification
(``CompareSpec.differences``), store anything (``workers.register_study``),
write the report (``compare_setup``), or know any protocol: the parameters
are each protocol's ``Params`` from the registry.
"""

from __future__ import annotations

import json
import shlex
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from debate_core.protocols.registry import protocol_class
from experiments.repeats import split_run_key
from experiments.workers import ExperimentError

if TYPE_CHECKING:
    from experiments.compare import CompareSpec
    from experiments.extensions import QuestionSetup
    from storage import Store

Params = dict[str, Any]


def resolved_params(spec: CompareSpec) -> dict[str, Params]:
    """Each system's parameters as its debates resolve them (defaults filled), as JSON values."""
    found: dict[str, Params] = {}
    for system in spec.systems:
        protocol, params = spec.params_for(system)
        try:
            found[system] = protocol_class(protocol).Params.model_validate(params).model_dump(mode="json")
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(part) for part in first["loc"]) or "(all)"
            message = str(first["msg"]).removeprefix("Value error, ")
            raise ExperimentError(f"{system}: {protocol} parameter {where}: {message}") from None
    return found


def recorded(spec: CompareSpec) -> CompareSpec:
    """``spec`` with each system's resolved parameters in ``system_params`` (what a study stores)."""
    return spec.model_copy(update={"system_params": resolved_params(spec)})


@dataclass(frozen=True)
class SpecCheck:
    """What a rerun's parameters do to a stored study: refuse it (with how to resume it as it began), or warn."""

    refusals: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def check(
    stored: Mapping[str, Any], spec: CompareSpec, debates: Callable[[], Mapping[str, Sequence[Params]]]
) -> SpecCheck:
    """A rerun ``spec`` against the stored specification ``stored`` (as stored: JSON); ``debates()``, asked only when
    ``stored`` records no parameters, gives per system the parameters its finished debates recorded."""
    now = spec.system_params if spec.system_params is not None else resolved_params(spec)
    before = stored.get("system_params")
    if isinstance(before, Mapping):
        result = SpecCheck()
        for system in spec.systems:
            if system in before:  # a system added or dropped is a change of ``systems``: refused as such
                _compare(spec, system, [dict(before[system])], now[system], result, "recorded when the study began")
        return result
    found = debates()
    finished = sum(len(found.get(system, ())) for system in spec.systems)
    result = SpecCheck(
        warnings=[
            f"experiment {spec.experiment_id!r} was stored without each system's parameters (a comparison begun "
            "before they were recorded): "
            + (
                f"the rerun's were checked against the ones its {finished} finished debates recorded"
                if finished
                else "none of its debates has finished, so none ran with other parameters"
            )
            + "; its report says they were not recorded"
        ]
    )
    for system in spec.systems:
        if found.get(system):
            had = list(found[system])
            _compare(spec, system, had, now[system], result, f"in its {len(had)} finished debate{'s' * (len(had) > 1)}")
    return result


def _compare(spec: CompareSpec, system: str, before: list[Params], now: Params, result: SpecCheck, source: str) -> None:
    """Each parameter of ``system``: the values ``before`` (the record's, or each finished debate's) against ``now``."""
    protocol, given = spec.params_for(system)
    for key in sorted({*now, *(k for params in before for k in params)}):
        had = [params for params in before if key in params]
        if key not in now:
            old = ", ".join(sorted({_shown(p[key]) for p in had}))
            result.warnings.append(
                f"{system}: the study began with parameter {key}={old}, which {protocol} no longer has"
            )
            continue
        if not had:
            result.warnings.append(
                f"{system}: parameter {key} is not in the study's record ({protocol} gained it since); its debates "
                f"from now on run with {key}={_shown(now[key])}"
            )
            continue
        values = Counter(_canonical(p[key]) for p in had)
        if len(values) > 1:
            mixed = ", ".join(f"{_shown(json.loads(v))} ({n})" for v, n in values.most_common())
            result.warnings.append(
                f"{system}: its finished debates already mix {key}: {mixed}; its debates from now on run with "
                f"{_shown(now[key])} (the report lists the values its debates recorded)"
            )
            continue
        old = had[0][key]
        if _canonical(old) != _canonical(now[key]):
            why = "as given now" if key in given else f"{protocol}'s default now"
            resume = shlex.quote(f"{protocol}.{key}={_cli_value(old)}")
            result.refusals.append(
                f"{system}'s parameter {key}: {_shown(old)} -> {_shown(now[key])} ({_shown(old)} {source}, "
                f"{_shown(now[key])} {why}; to resume the study as it began, add --param {resume})"
            )


def debate_params(
    store: Store, spec: CompareSpec, prepared: Mapping[str, Mapping[str, QuestionSetup]]
) -> dict[str, list[Params]]:
    """Per system, the parameters each of its finished debates recorded, less those its question's study
    preparation set (``prepared``: per protocol, per question key; they differ by question by design)."""
    recorded_by_debate = store.debate_params(spec.experiment_id)
    found: dict[str, list[Params]] = {}
    for run in store.experiments.runs(spec.experiment_id):
        params = recorded_by_debate.get(run.debate_id)
        if params is None or run.condition not in spec.systems:
            continue
        setup = prepared.get(spec.params_for(run.condition)[0], {}).get(split_run_key(run.question_key)[0])
        own = set(setup.params) if setup is not None else set()
        found.setdefault(run.condition, []).append({k: v for k, v in params.items() if k not in own})
    return found


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def _shown(value: Any) -> str:
    """A value as a message shows it: Python's spelling (None, 'regenerate', [4, 7])."""
    return repr(value)


def _cli_value(value: Any) -> str:
    """``value`` as ``--param`` reads it back: a string as itself unless it would read as JSON, else JSON."""
    if isinstance(value, str):
        try:
            json.loads(value)
        except json.JSONDecodeError:
            return value
    return json.dumps(value)
