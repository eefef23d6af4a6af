"""Kimura et al.'s interruptible debate: the protocol this product was built on.

What it does: exports ``KimuraProtocol`` (registered as ``kimura``, variants
``interruptible``, ``dynamic`` and ``fixed``), its turn rules and its forms.
The package holds the protocol's loop (``protocol``), its conditions
(``rules``), its request kinds (``forms``, ``plans``), its prompts (``prompts/``
and ``prompting``), its views and state, and a scripted demo (``demo``).

What it does not do: anything the kernel does.
"""

from protocols.kimura.params import KimuraParams
from protocols.kimura.protocol import KimuraProtocol
from protocols.kimura.rules import DynamicOrder, FixedOrder, Interruptible, TurnRule, rule_for

__all__ = ["DynamicOrder", "FixedOrder", "Interruptible", "KimuraParams", "KimuraProtocol", "TurnRule", "rule_for"]
