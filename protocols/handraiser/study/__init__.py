"""HandRaiser's study code, a front end of the protocol for ``python -m experiments``.

What it does: ``positions`` (the positions pool: each question's most
confusing wrong answer and both sides' explanations, stored),
``preparation`` (that pool as ``compare``'s study preparation: each
question's sides and briefs, ``--no-positions`` and ``--positions-model``),
``tasks`` (the three tasks: protocol, listener seat, data set), ``tree``,
``tree_prompts`` and ``cli`` (the ``tree-sample`` sub-command: listener
training data by tree sampling on any task), ``listener_data`` and
``train_listener`` (the ``train-listener`` sub-command: the fine-tuned Yes/No
listener, full or LoRA), ``report`` and ``tables`` (the policies' section
and figures of a comparison report, Table 6's shape and Table 2's grid),
``transfer`` (the ``handraiser-transfer`` sub-command and its study kind:
each listener on each task). It may import ``experiments``
and ``storage``; the engine never imports it (``plugin`` does, inside its
hooks).

What it does not do: run debates (the protocol's engine modules and
``experiments.compare`` do).
"""
