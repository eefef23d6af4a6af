"""ACE's parameters, with the paper's defaults where it gives them.

What it does: ``AceParams`` holds every setting of the Analyze-Compose-Execute
debate and of its parallel baseline, each overridable from a configuration's
``params`` (``--param KEY=VALUE``):

* ``rounds`` (4): the answering rounds of a debate that nothing else ends:
  the parallel baseline answers ``rounds`` times (a first answer and
  ``rounds - 1`` revisions; the paper's 4 for its baselines), and the
  ``no_analyze`` ablation, which has no observer to end it, runs ``rounds``
  rounds (round 1 and ``rounds - 1`` cycles);
* ``max_rounds`` (None, the paper): a cap on ACE's rounds (round 1 and at
  most ``max_rounds - 1`` Analyze-Compose-Execute cycles). The paper states
  no cap: its observer alone ends the discussion. A debate that reaches a
  cap set here ends ``rounds`` (``no_analyze`` runs ``max_rounds`` rounds
  when it is set);
* ``guard_rounds`` (10): a safety net, not a method setting: with no
  ``max_rounds``, a debate whose observer never says stop ends after this
  many rounds with the end reason ``max_turns`` (a stall guard's, which the
  comparison report lists as cut short and ACE's report counts apart);
* ``execute_input`` (``paper``): what the Execute step is given. ``paper``:
  the paper's Execute prompt as printed followed by the composed action
  (with the question and the format-constraining prompt before them);
  ``rich`` (this project's option): the question, the debater's last
  reply, the other debaters' replies and their comments as well;
* ``par_prompts`` (``du``): the parallel baseline's prompts. ``du``: Du et
  al.'s original prompts (their conversation, their wording) with ACE's
  format-constraining prompt in place of their ``(X)`` form, as the paper
  ran its baselines; ``ace`` (this project's option): ACE's own JSON answer
  with an itemised explanation, as ACE and its ablations answer;
* ``acts``: a TOML file holding the act library (default: the package's
  ``acts.toml``). A researcher adds an act by copying that file and adding a
  ``[[act]]`` entry (name, orientation ``self`` or ``peer``, description,
  example); no code changes;
* ``final`` (``observer``): how the answer is decided when the debaters still
  disagree at the end. ``observer``: the observer picks one of the debaters'
  answers (the project's choice where the paper is silent); ``majority``: the
  kernel's majority with its seeded tie rule. Debaters that agree always
  give the agreed answer. The parallel baseline always takes the majority;
* ``items`` (4): explanation items per answer at most, and ``item_chars``
  (240) the longest item a constrained model may write;
* ``answer_tokens`` (320), ``analyze_tokens`` (256), ``compose_tokens`` (160)
  and ``pick_tokens`` (32): generation caps of each step (the debate's
  ``max_new_tokens`` still caps them all);
* ``constrained`` (false, the paper): the prompts ask for JSON and nothing
  more, as the paper's (GPT-3.5 wrote it unaided); a reply that is not
  usable JSON is read leniently or falls back as ``forms`` documents, and
  the mistake is recorded on its event. ``constrained=true`` (this
  project's option) sends each request's JSON schema, which a backend with
  constrained decoding enforces: small open models break JSON without it.

The variant names the ablation (``ace``, ``no_analyze``, ``no_compose``,
``no_execute``) or the baseline (``parallel``), so that a study compares them
as systems.

What it does not do: run anything (``protocol``, ``loop``), word prompts
(``prompts/``) or read the act library (``library``).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from debate_core.protocols.base import ProtocolParams


class AceParams(ProtocolParams):
    """Every knob of ACE and its parallel baseline (see the module docstring)."""

    rounds: int = Field(4, ge=1, le=20, description="answering rounds of parallel and no_analyze (round 1 included)")
    max_rounds: int | None = Field(None, ge=1, le=100, description="a cap on ACE's rounds (None: the observer ends)")
    guard_rounds: int = Field(10, ge=2, le=100, description="safety net without max_rounds: ends max_turns")
    execute_input: Literal["paper", "rich"] = Field("paper", description="Execute: prompt + action, or + replies")
    par_prompts: Literal["du", "ace"] = Field("du", description="parallel: Du et al.'s prompts, or ACE's JSON")
    acts: str | None = Field(None, max_length=500, description="a TOML act library (default: the package's)")
    final: Literal["observer", "majority"] = Field("observer", description="who settles a disagreement at the end")
    items: int = Field(4, ge=1, le=12, description="explanation items per answer at most")
    item_chars: int = Field(240, ge=40, le=2_000, description="the longest explanation item")
    answer_tokens: int = Field(320, ge=16, le=8_192, description="token cap of an answer (round 1, execute)")
    analyze_tokens: int = Field(256, ge=16, le=8_192, description="token cap of the observer's analysis")
    compose_tokens: int = Field(160, ge=16, le=8_192, description="token cap of a composed action")
    pick_tokens: int = Field(32, ge=4, le=512, description="token cap of the observer's pick")
    constrained: bool = Field(False, description="send each reply's JSON schema (false: the prompt alone, the paper)")
