"""Parliament's study code: what it adds to ``python -m experiments`` (a front end of the protocol).

What it does: ``report`` declares Parliament's chain-of-thought baseline
(``parliament/cot``) as the control a comparison report measures the other
systems against. It may import ``experiments`` and ``storage``; the engine
never imports it (``plugin`` does, inside its hook).

What it does not do: run debates (the protocol's engine modules do).
"""
