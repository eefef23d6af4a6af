"""The demo question and agents every protocol shares: what a debate asks when nobody gives a question.

What it does: ``DEMO_QUESTION`` (which gas makes up most of Earth's atmosphere,
four options, B correct) and ``DEMO_AGENTS`` (Alex, Chris and Jenny with their
personas). The terminal's ``run`` without ``--question`` debates them, and the
protocols' scripted demos speak about this question when they recognise it.

What it does not do: script any reply (each protocol's ``demo`` module does) or
pick how many agents a protocol seats (its roles do).
"""

from __future__ import annotations

from debate_core.config import AgentSpec, Question

DEMO_QUESTION = Question(
    text="Which gas makes up the largest share of Earth's atmosphere by volume?",
    options=("Oxygen", "Nitrogen", "Carbon dioxide", "Argon"),
    answer="B",
)

DEMO_AGENTS = (
    AgentSpec(name="Alex", persona="You trust everyday intuition and say so plainly."),
    AgentSpec(name="Chris", persona="You are cautious and like to check numbers."),
    AgentSpec(name="Jenny", persona="You are a careful scientist who corrects mistakes quickly."),
)
