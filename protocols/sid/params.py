"""SID's parameters, with the paper's (and where they differ, the authors' code's) defaults.

What it does: ``SidParams`` holds every setting of the self-signals debate,
each overridable from a configuration's ``params`` (``--param KEY=VALUE``):

* ``rounds`` (2): answering rounds; round 1 is every agent's first answer,
  each later round a revision after reading the others' previous answers
  (the authors' code runs ``n_rounds=2``);
* ``gate`` (``alpha``): the early-exit rule of the gated variants: ``alpha``
  (the paper: max(NLL max, entropy max) <= ``alpha`` * ln|V|, ``alpha`` 0.5
  for general-purpose models, 1.0 for reasoning models) or ``fixed`` (the
  code's SID-v: NLL max < 2.5 and entropy max < 3.0); the ``sid_c`` variant
  gates on ``classifier`` (a trained gate, ``python -m experiments
  train-gate``) with ``tau`` (0.9, the paper; the code used 0.544), reading
  the features its gate file names (``train-gate`` trains on the paper's
  eight-number confidence vector U unless told ``--features code``, the
  authors' code's four); ``gate_features`` (``u`` or ``code``), when set,
  refuses a gate file of the other set;
* ``rho`` (0.4, the code's ``attn_topp``): the fraction of the others'
  tokens a recipient keeps; ``layers`` (``all``): a token's attention score
  is its maximum over every layer and head (Eq. 5) or, with ``one``, over the
  heads of layer ``layer`` (-1: the last, as the authors' code); ``widen`` (true): stretch kept tokens to their clauses
  (the ``no_expand`` variant turns it off); ``clauses`` (``paper``): where a
  widened token's unit ends: ``paper`` (commas, periods and the other
  sentence marks, line breaks, coordinating conjunctions: §4.2, App. C.1) or
  ``code`` (the authors' code's ``. ! ? ;`` and line breaks);
* ``answer_tokens`` (512): the cap of an answer (the code's 1,024 is slow on a CPU);
* ``exits`` (``first``): in the gated variants only the first agent's
  first answer can end the debate (Alg. 1 and the authors' code), or
  ``each``: every agent answers round 1 and each confident one leaves the
  debate (§4.3's reading);
* ``ties`` (``first``): a tie between the last round's answers goes to the
  tied answer given first in seat order (the paper is silent; the authors'
  code takes ``Counter.most_common``'s first, the first agent's among the
  tied), recorded on the end as ``tie`` with ``decided_by``; or ``draw``: a
  draw among the tied answers with the debate's seeded generator, recorded
  as ``tie``;
* ``prompts`` (``paper``): each data set's system prompt and output
  instruction (Tables 4 and 5, ``formats``) for the question's ``dataset``
  (a study sets it per question from the question's data set; unset, or a
  data set the paper gives none for: the single rule), or ``one``: the
  single rule for every question.

The variant chooses which signals are used (``mad``, ``compress``,
``exit``, ``sid``, ``sid_c``, ``no_expand``; and Table 3's ``cot`` and
``summary``), so a study compares them as systems.

What it does not do: run anything (``loop``) or word prompts (``prompts/``).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from debate_core.protocols.base import ProtocolParams


class SidParams(ProtocolParams):
    """Every knob of SID (see the module docstring)."""

    rounds: int = Field(2, ge=1, le=20, description="answering rounds (round 1: the first answers)")
    gate: Literal["alpha", "fixed"] = Field("alpha", description="early exit: alpha * ln|V|, or the code's constants")
    alpha: float = Field(0.5, gt=0.0, le=10.0, description="the alpha rule's factor of ln|V|")
    classifier: str | None = Field(None, max_length=500, description="sid_c: the trained gate (JSON)")
    tau: float = Field(0.9, ge=0.0, le=1.0, description="sid_c: exit iff the classifier's P(right) >= tau")
    gate_features: Literal["u", "code"] | None = Field(
        None, description="sid_c: the gate file must read the paper's 8-number U (u) or the code's 4 (code)"
    )
    rho: float = Field(0.4, ge=0.0, le=1.0, description="fraction of the others' tokens a recipient keeps")
    layers: Literal["all", "one"] = Field(
        "all", description="attention scores: the maximum over every layer (Eq. 5), or one layer (the code's)"
    )
    layer: int = Field(-1, ge=-200, le=200, description="with layers=one: the attention layer (-1: the last)")
    widen: bool = Field(True, description="stretch kept tokens to their clauses")
    clauses: Literal["paper", "code"] = Field(
        "paper", description="clause boundaries: commas, periods, conjunctions (paper) or . ! ? ; (the code's)"
    )
    answer_tokens: int = Field(512, ge=16, le=8_192, description="token cap of an answer")
    exits: Literal["first", "each"] = Field(
        "first", description="early exit: the first agent's first answer (Alg. 1), or each agent's own (§4.3)"
    )
    ties: Literal["first", "draw"] = Field(
        "first", description="a tie of the last answers: the first seat's among the tied (the code's), or a seeded draw"
    )
    prompts: Literal["paper", "one"] = Field(
        "paper", description="the data set's system prompt and answer format (Tables 4, 5), or one rule for all"
    )
    dataset: str | None = Field(
        None, max_length=80, description="the question's data set (a study sets it per question): its prompts"
    )
