"""The baselines in the web app: how the seat form words TAR's judge's call.

What it does: ``WEB`` (registered by ``plugin`` through ``register_web_renderers``) words the
judge's ``judge_check`` for a person in the judge's seat: the heading says the round ("Your call
as the judge, round 2"), a sentence says what each choice does, and each side reads with its
answer ("Affirmative: B", from the view's ``affirmative_position``); the option labels stay as
they are. The judge's own prompt (``forms.ASKED``) follows them; every other step of the family
keeps its own prompt (``forms.asked``) and values.

What it does not do: change what is submitted (the values stay ``yes``, ``no``, ``affirmative``,
``negative`` and the option's label), draw anything (the family's events are the generic ones),
or run the protocol (the engine modules never import this one).
"""

from __future__ import annotations

from string import ascii_uppercase

from ui.web_plugins import WebRenderers, Wording

JUDGE = Wording(
    "Your call as the judge",
    "Yes ends the debate with the side's answer (or the answer you choose); no lets both sides argue another round.",
    {
        "no": "No: another round",
        "yes": "Yes: end the debate now",
        "affirmative": "Affirmative",
        "negative": "Negative",
        **{label: label for label in ascii_uppercase},  # the option labels, as they are
    },
    rounded=True,
)
WEB = WebRenderers(protocols=("baselines",), wordings={"judge_check": JUDGE})
