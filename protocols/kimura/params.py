"""Kimura's parameters: the settings only this protocol reads, with the paper's defaults.

What it does: ``KimuraParams`` holds every Kimura-only setting, each
overridable from a configuration's ``params`` (``--param KEY=VALUE``):

* ``urgency`` (beyond the paper): the urgency the turn rule uses, ``stated``
  in the plan (the paper), measured from the model's ``confidence`` in its
  plan, or ``both`` averaged (see ``confidence``);
* ``history_window``: turns of history (and own thoughts) in a prompt; none
  (the default): all of them, as the paper's Table I gives the whole log of
  utterances up to the previous turn; a number keeps the last N (long
  debates, small contexts);
* ``prompt_layout``: the plan prompt's layout, ``paper`` (Algorithm 1) or
  ``cached`` (append-only, for key/value prefix reuse; see ``PromptLayout``);
* ``utterance_max_new_tokens``: a tighter cap for utterances than
  ``max_new_tokens`` (short demos on slow hardware; none: no tighter cap).

These three used to be top-level fields of ``DebateConfig``; older
configurations are read with them moved here (``knobs_into_params``). The
generic settings (budget, stall guards, condition, initial answers) stay in
``DebateConfig``.

What it does not do: run anything (``protocol``) or word prompts (the
template files in ``prompts/``).
"""

from __future__ import annotations

from pydantic import Field

from debate_core.config import DEFAULT_HISTORY_WINDOW, PromptLayout
from debate_core.protocols.base import ProtocolParams
from protocols.kimura.confidence import UrgencyMode


class KimuraParams(ProtocolParams):
    """Kimura's own settings (defaults: the paper's). The budget, the stall guards and the initial answers
    are general settings of ``DebateConfig``."""

    urgency: UrgencyMode = Field("stated", description="the urgency used: stated, confidence, or both")
    history_window: int | None = Field(
        DEFAULT_HISTORY_WINDOW, ge=1, le=10**6, description="turns of history in a prompt (none: all, the paper)"
    )
    prompt_layout: PromptLayout = Field(PromptLayout.PAPER, description="plan prompt: paper or cached")
    utterance_max_new_tokens: int | None = Field(
        None, ge=1, le=10**6, description="a tighter cap for utterances (none: max_new_tokens)"
    )
