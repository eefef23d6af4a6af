"""SID's rounds: a synchronous multi-agent debate gated by the first answer's confidence and
compressed by each recipient's attention.

What it does: ``debate`` drives one debate over a ``Council`` (the run
state, ``state``: agents, last answers, views, publishing and measuring a
round's answers) and yields its events, ending with ``table.finish``:

1. **Round 1.** In the gated variants (``exit``, ``sid``, ``sid_c``,
   ``no_expand``) the first agent answers alone, its reply measured; if the
   gate passes, the debate ends at once with its answer (``early_exit``,
   rule ``single``), provided the reply names an answer (a confident reply
   without an answer line cannot end a debate). A person in the first seat
   has no signals: there is no early exit. Otherwise the other agents answer (one batch); the variants
   without a gate ask everyone at once.
2. **Rounds 2..rounds.** Each agent revises after reading the others'
   previous answers. In the compressing variants (``compress``, ``sid``,
   ``sid_c``, ``no_expand``) every model recipient is first probed (one
   batch of prefill-only attention requests): the others' answers, placed
   after the focus instruction, are scored token by token, the top ``rho``
   kept, widened to clauses unless ``widen`` is off or the variant is
   ``no_expand``, merged, and that text replaces the others' answers in its
   prompt (``ContextCompressed``: the spans kept, by character offsets in the
   scored text). A person reads the others' answers whole; their own answer
   is compressed for the others like anyone's.
3. **The end.** The majority of the last round's answers (ties: the
   debate's seeded draw), ``rounds``.

In the gated variants every reply is measured (a confidence gauge per agent
per round); only the first agent's first reply can end the debate.

What it does not do: keep the debate's run state (the ``Council``,
``state``), word or read anything (``prompting``, ``forms``), compute
attention (backends) or select spans (``compression``).
"""

from __future__ import annotations

from collections.abc import Iterator

from debate_core.events.codec import Event
from debate_core.events.records import EndReason
from debate_core.kernel.endings import majority, single
from debate_core.kernel.forms import FormResult
from protocols.sid.compression import SEPARATORS, compress
from protocols.sid.events import ContextCompressed
from protocols.sid.state import COMPRESSING, GATED, Council
from protocols.sid.views import Reply


def debate(council: Council) -> Iterator[Event]:
    table, forms = council.table, council.forms
    yield table.phase("answer", 1)
    table.tick()
    agents = list(council.agents)
    if council.variant in GATED:
        first = agents[0]
        results = dict(table.ask(forms.answer, [first], council.view))
        yield from council.publish(results, "answer")
        measured = council.measured.get(first)
        named = council.replies[first].answer is not None  # a confident reply that names no answer cannot end it
        if measured is not None and measured.passed and named and not council.is_person(first):
            yield table.phase("decision", 1, f"early exit: {first} is confident enough ({measured.rule})")
            answers = table.answer_list()
            yield table.finish(EndReason.EARLY_EXIT, single(first, council.replies[first].answer, answers))
            return
        rest = agents[1:]
    else:
        rest = agents
    if rest:
        yield from council.publish(dict(table.ask(forms.answer, rest, council.view)), "answer")
    for round_ in range(2, council.params.rounds + 1):
        council.round = round_
        yield table.phase("revise", round_)
        table.tick()
        kept: dict[str, str] = {}
        if council.variant in COMPRESSING:
            for event in _compress(council):
                kept[event.agent] = event.kept_text
                yield event
        yield from council.publish(_revise(council, kept), "revise")
    yield table.phase("decision", council.round)
    yield table.finish(EndReason.ROUNDS, majority(table.answer_list(), table.rng))


def _revise(council: Council, kept: dict[str, str]) -> dict[str, FormResult[Reply]]:
    """Every agent's revision: with what it kept of the others where it was compressed, else with them whole."""
    table, forms = council.table, council.forms
    results: dict[str, FormResult[Reply]] = {}
    if kept:
        results.update(table.ask(forms.revise_kept, list(kept), lambda n: council.view(n, kept=kept[n])))
    whole = [n for n in council.agents if n not in kept]
    if whole:
        results.update(table.ask(forms.revise, whole, council.view))
    return results


def _compress(council: Council) -> Iterator[ContextCompressed]:
    """Probe every model recipient's attention to the others' answers; what each keeps of them."""
    table, params = council.table, council.params
    recipients = [n for n in council.agents if not council.is_person(n) and council.view(n).others]
    if not recipients:
        return
    probes = table.ask(council.forms.focus, recipients, council.view)
    expand = params.widen and council.variant != "no_expand"
    for name in recipients:
        completion = probes[name].completion
        scores = completion.attention if completion is not None else None
        if scores is None:
            continue  # a backend that answered without scores (it declared the capability): nothing is compressed
        kept = compress(scores.text, scores.tokens, params.rho, expand=expand, separators=SEPARATORS)
        yield table.emit(
            ContextCompressed,
            agent=name,
            round=council.round,
            source_text=scores.text,
            source_tokens=len(scores.tokens),
            kept_spans=kept.spans,
            kept_text=kept.text,
            ratio=kept.ratio,
            top_p=params.rho,
            layer=scores.layer,
        )
