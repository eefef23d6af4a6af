"""The package's one named logger.

Everything in ``debate_core`` logs through ``logger`` (name ``"debate_core"``),
so an application configures or silences the engine in one place. The engine
never prints: what a user should see travels as events.
"""

from __future__ import annotations

import logging

logger = logging.getLogger("debate_core")
logger.addHandler(logging.NullHandler())
