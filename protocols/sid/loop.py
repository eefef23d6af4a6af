"""SID's rounds: a synchronous multi-agent debate gated by the first answer's confidence and
compressed by each recipient's attention.

What it does: ``debate`` drives one debate over a ``Council`` (the run
state, ``state``: agents, last answers, views, publishing and measuring a
round's answers) and yields its events, ending with ``table.finish``. Its
rounds are MAD's (Du et al.), the kernel's ``parallel_debate`` that the
baselines family and ACE's PAR run too, with SID's prompt set; SID's
mechanisms plug into it: the gate as round 1's opening, the compression
before each revision batch:

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
   kept, widened to clauses (``clauses``: the paper's boundaries or the
   code's) unless ``widen`` is off or the variant is ``no_expand``, merged,
   and that text replaces the others' answers in its prompt
   (``ContextCompressed``: the spans kept, by character offsets in the
   scored text). A person reads the others' answers whole; their own answer
   is compressed for the others like anyone's.
3. **The end.** The majority of the last round's answers, ``rounds``; a
   tie goes to the tied answer given first in seat order (``ties=first``,
   the authors' code's ``Counter.most_common``) or to the debate's seeded
   draw (``ties=draw``), the tied answers recorded either way.

In the gated variants every reply is measured (a confidence gauge per agent
per round); only the first agent's first reply can end the debate, unless
``exits=each`` (§4.3's reading: "each agent assesses its confidence ... If
the agent is sufficiently confident, it exits the debate early"): then every
agent answers round 1 at once, each confident one (its reply naming an
answer) leaves the debate, its answer standing in the others' view and in
the final majority, the others debate on; when every agent is confident the
debate ends at once with their majority (``early_exit``).

Two of Table 3's rows are other shapes of this loop: ``cot`` (single-round
CoT) asks the first agent alone, once, with SID's answer prompt, and ends
with its answer; ``summary`` ("SID w/o early exit w/ token-level summary",
§5.3: "replacing token-level compression with a self-summary strategy")
has every model recipient's own model summarize the others' answers before
each revision batch (one batch of ``summarize`` requests; ``ContextCompressed``
with ``method`` summary records it) and revise reading that summary.

What it does not do: keep the debate's run state (the ``Council``,
``state``), word or read anything (``prompting``, ``forms``), compute
attention (backends) or select spans (``compression``).
"""

from __future__ import annotations

from collections.abc import Generator, Iterator, Mapping, Sequence

from debate_core.events.codec import Event
from debate_core.events.records import EndReason
from debate_core.kernel.endings import majority, single
from debate_core.kernel.forms import FormResult
from debate_core.kernel.parallel_debate import parallel_debate
from protocols.sid.compression import BOUNDARIES, compress
from protocols.sid.events import ContextCompressed
from protocols.sid.prompting import others_text
from protocols.sid.state import COMPRESSING, GATED, SUMMARIZING, Council
from protocols.sid.views import Reply


def debate(council: Council) -> Iterator[Event]:
    """MAD (the kernel's ``parallel_debate``) with SID's prompt set, and in the variants that use them the gate
    as round 1's opening and the compression before each revision batch."""
    table, forms = council.table, council.forms
    kept: dict[str, str] = {}

    def ask(round_: int, who: Sequence[str]) -> Mapping[str, FormResult[Reply]]:
        council.round = round_
        if round_ == 1:
            return table.ask(forms.answer, who, council.view)
        return _revise(council, [n for n in who if n not in council.exited], kept)

    def publish(round_: int, results: Mapping[str, FormResult[Reply]]) -> Iterator[Event]:
        return council.publish(results, "answer" if round_ == 1 else "revise")

    def before(round_: int) -> Iterator[Event]:
        council.round = round_
        kept.clear()
        shorten = (
            _compress if council.variant in COMPRESSING else _summarize if council.variant in SUMMARIZING else None
        )
        if shorten is not None:
            for event in shorten(council):
                kept[event.agent] = event.kept_text
                yield event

    if council.variant == "cot":  # single-round CoT: the first agent, once
        yield from parallel_debate(table, council.agents[:1], 1, ask, publish)
        return
    opening = None
    if council.variant in GATED:
        opening = (lambda: _gate_each(council)) if council.params.exits == "each" else (lambda: _gate(council))
    yield from parallel_debate(
        table,
        council.agents,
        council.params.rounds,
        ask,
        publish,
        before=before,
        opening=opening,
        ties=council.params.ties,
    )


def _gate(council: Council) -> Generator[Event, None, tuple[str, ...] | None]:
    """Round 1's opening in the gated variants: the first agent answers alone and, if its reply passes the gate and
    names an answer, ends the debate (None); otherwise the others answer in round 1's batch."""
    table = council.table
    first = council.agents[0]
    yield from council.publish(table.ask(council.forms.answer, [first], council.view), "answer")
    measured = council.measured.get(first)
    named = council.replies[first].answer is not None  # a confident reply that names no answer cannot end it
    if measured is not None and measured.passed and named and not council.is_person(first):
        yield table.phase("decision", 1, f"early exit: {first} is confident enough ({measured.rule})")
        yield table.finish(EndReason.EARLY_EXIT, single(first, council.replies[first].answer, table.answer_list()))
        return None
    return (first,)


def _gate_each(council: Council) -> Generator[Event, None, tuple[str, ...] | None]:
    """Round 1 under ``exits=each``: everyone answers at once; each confident agent leaves the debate, its answer
    standing; when all are confident the debate ends with their majority (None)."""
    table, agents = council.table, council.agents
    yield from council.publish(table.ask(council.forms.answer, agents, council.view), "answer")
    for name in agents:
        measured = council.measured.get(name)
        confident = measured is not None and measured.passed and council.replies[name].answer is not None
        if confident and not council.is_person(name):
            council.exited.add(name)
    if council.exited == set(agents):
        yield table.phase("decision", 1, "early exit: every agent is confident enough")
        yield table.finish(EndReason.EARLY_EXIT, majority(table.answer_list(), table.rng, council.params.ties))
        return None
    if council.exited:
        leaving = ", ".join(n for n in agents if n in council.exited)
        yield table.phase("decision", 1, f"early exit: {leaving} confident enough; their answers stand")
    return tuple(agents)


def _revise(council: Council, who: Sequence[str], kept: Mapping[str, str]) -> dict[str, FormResult[Reply]]:
    """Every agent's revision: with what it kept of the others (or their summary) where it was compressed (or
    summarized), else with them whole."""
    table, forms = council.table, council.forms
    results: dict[str, FormResult[Reply]] = {}
    compressed = [n for n in who if n in kept]
    form = forms.revise_summary if council.variant in SUMMARIZING else forms.revise_kept
    if compressed:
        results.update(table.ask(form, compressed, lambda n: council.view(n, kept=kept[n])))
    whole = [n for n in who if n not in kept]
    if whole:
        results.update(table.ask(forms.revise, whole, council.view))
    return results


def _compress(council: Council) -> Iterator[ContextCompressed]:
    """Probe every model recipient's attention to the others' answers; what each keeps of them."""
    table, params = council.table, council.params
    recipients = _recipients(council)
    if not recipients:
        return
    probes = table.ask(council.forms.focus, recipients, council.view)
    expand = params.widen and council.variant != "no_expand"
    for name in recipients:
        completion = probes[name].completion
        scores = completion.attention if completion is not None else None
        if scores is None:
            continue  # a backend that answered without scores (it declared the capability): nothing is compressed
        kept = compress(scores.text, scores.tokens, params.rho, expand=expand, boundaries=BOUNDARIES[params.clauses])
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
            all_layers=scores.all_layers,
        )


def _recipients(council: Council) -> list[str]:
    """The agents still debating whose model reads the others (a person reads them whole)."""
    agents = [n for n in council.agents if n not in council.exited]
    return [n for n in agents if not council.is_person(n) and council.view(n).others]


def _summarize(council: Council) -> Iterator[ContextCompressed]:
    """Each model recipient's own model summarizes the others' answers (``summary``, Table 3's ablation)."""
    table = council.table
    recipients = _recipients(council)
    if not recipients:
        return
    summaries = table.ask(council.forms.summarize, recipients, council.view)
    for name in recipients:
        result = summaries[name]
        source = others_text(council.view(name).others)
        summary = (result.value or "").strip() or source  # nothing said: the others whole
        completion = result.completion
        yield table.emit(
            ContextCompressed,
            agent=name,
            round=council.round,
            source_text=source,
            source_tokens=completion.prompt_tokens if completion is not None else 0,
            kept_spans=(),
            kept_text=summary,
            ratio=min(1.0, len(summary) / max(1, len(source))),
            top_p=0.0,
            method="summary",
        )
