"""SID's kept spans on the embedded model: one layer against every layer, the paper's boundaries against the code's.

For a few questions, three agents of the embedded SmolLM2-135M-Instruct answer with SID's own
``answer`` prompt (``--tokens`` new tokens each, the study's 128 by default, sampled at
``--temperature``, 0.6 by default as the authors' Llama config, each agent with its own seed; greedy
SmolLM2 answers these questions in one line, "The answer is (B).", which no boundary can cut); then every
agent is probed as round 2 would probe it (SID's ``focus`` prompt: the question, its own answer, the
focus instruction, the other two answers) twice: attention scores from the last layer (max over
heads, the authors' code) and the maximum over every layer and head (Eq. 5). Each probe's scores
are compressed at rho 0.4 with the paper's boundaries (commas, periods, coordinating conjunctions),
with the code's (``. ! ? ;`` and line breaks) and without widening; the kept share of the others'
characters is printed for each, with how much the two scorings' kept tokens overlap and how spread
their scores are (the share of tokens scored above 0.5: a maximum over 900 heads may saturate).

    python bench/sid_kept_spans.py [--tokens 128] [--questions 2] [--show]

What it does not do: run a debate (the probes are round 2's, the revisions are not generated), or
judge which kept text is better: it prints what each setting keeps.
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Sequence

from debate_core.backends.base import AttentionScores, GenerationRequest, Message, SamplingParams, Signals
from debate_core.backends.hf import TransformersBackend
from debate_core.config import Question
from protocols.sid.compression import BOUNDARIES, compress, keep_top
from protocols.sid.forms import sid_forms
from protocols.sid.views import SidView

AGENTS = ("Alex", "Chris", "Jenny")
RHO = 0.4
QUESTIONS = (
    Question(
        text="Which gas makes up most of the Earth's atmosphere by volume?",
        options=("Oxygen", "Nitrogen", "Carbon dioxide", "Argon"),
        answer="B",
    ),
    Question(
        text="A shop sells pencils at 3 for $1. How much do 12 pencils cost?",
        options=("$3", "$4", "$6", "$12"),
        answer="B",
    ),
    Question(
        text="Which organelle produces most of a cell's ATP?",
        options=("Ribosome", "Nucleus", "Mitochondrion", "Golgi apparatus"),
        answer="C",
    ),
)


def request(
    messages: Sequence[Message], kind: str, agent: str, tokens: int, signals: Signals, temperature: float = 0.0
) -> GenerationRequest:
    sampling = SamplingParams(temperature, tokens, AGENTS.index(agent))
    return GenerationRequest(tuple(messages), sampling, kind, agent, 1, None, None, signals=signals)


def answers(backend: TransformersBackend, question: Question, tokens: int, temperature: float) -> dict[str, str]:
    """Round 1: every agent's answer to SID's answer prompt (one batch; each agent its own seed)."""
    form = sid_forms(tokens, -1, measured=False).answer
    views = {name: SidView(agent=name, question=question) for name in AGENTS}
    completions = backend.generate(
        [request(form.render(v), "answer", n, tokens, form.signals, temperature) for n, v in views.items()]
    )
    return {name: c.text.strip() for name, c in zip(AGENTS, completions, strict=True)}


def probe(
    backend: TransformersBackend, question: Question, said: dict[str, str], all_layers: bool
) -> list[AttentionScores | None]:
    """Round 2's probe of every agent: its scores of the others' answers."""
    form = sid_forms(16, -1, measured=False, all_layers=all_layers).focus
    requests = []
    for name in AGENTS:
        others = tuple((n, said[n]) for n in AGENTS if n != name)
        view = SidView(agent=name, question=question, round=2, own=said[name], others=others)
        requests.append(request(form.render(view), "focus", name, 1, form.signals))
    return [c.attention for c in backend.generate(requests)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--tokens", type=int, default=128, help="new tokens per answer (default 128)")
    parser.add_argument("--questions", type=int, default=2, help=f"how many of the {len(QUESTIONS)} questions")
    parser.add_argument("--temperature", type=float, default=0.6, help="answers' temperature (default 0.6)")
    parser.add_argument("--show", action="store_true", help="print the kept text of the first recipient")
    args = parser.parse_args()
    backend = TransformersBackend()
    rows: dict[tuple[str, str], list[float]] = {}
    print(f"rho {RHO}; kept share of the others' characters per recipient")
    print("question recipient  scores  chars  tokens  >0.5   paper   code  no_expand  top-tokens overlap")
    for q_index, question in enumerate(QUESTIONS[: args.questions]):
        said = answers(backend, question, args.tokens, args.temperature)
        one, every = probe(backend, question, said, False), probe(backend, question, said, True)
        for name, scored_one, scored_all in zip(AGENTS, one, every, strict=True):
            kept_sets = []
            for label, scores in (("last", scored_one), ("all", scored_all)):
                assert scores is not None
                text, tokens = scores.text, scores.tokens
                paper = compress(text, tokens, RHO, boundaries=BOUNDARIES["paper"])
                code = compress(text, tokens, RHO, boundaries=BOUNDARIES["code"])
                bare = compress(text, tokens, RHO, expand=False)
                high = sum(t.score > 0.5 for t in tokens) / len(tokens)
                kept_sets.append({(t.start, t.end) for t in keep_top(tokens, RHO)})
                for key, value in (("paper", paper.ratio), ("code", code.ratio), ("no_expand", bare.ratio)):
                    rows.setdefault((label, key), []).append(value)
                overlap = ""
                if label == "all":
                    a, b = kept_sets
                    overlap = f"{len(a & b) / len(a | b):.2f}"
                print(
                    f"{q_index + 1:>8} {name:<10} {label:>6} {len(text):>6} {len(tokens):>7} {high:>5.2f} "
                    f"{paper.ratio:>7.2f} {code.ratio:>6.2f} {bare.ratio:>10.2f}  {overlap:>8}"
                )
                if args.show and q_index == 0 and name == AGENTS[0]:
                    print(f"    [{label} layers, paper's boundaries] {paper.text}")
    print("\nmean kept share")
    print("scores   paper   code  no_expand")
    for label in ("last", "all"):
        means = [statistics.fmean(rows[(label, key)]) for key in ("paper", "code", "no_expand")]
        print(f"{label:>6} " + " ".join(f"{m:>6.2f}" for m in means))


if __name__ == "__main__":
    main()
