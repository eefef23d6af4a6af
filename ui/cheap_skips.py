"""Gradio's ``gr.skip()`` made free: an output an event leaves alone costs nothing on the server.

What it does: ``install()`` wraps Gradio's ``Blocks.postprocess_data`` (once,
for every event of the app) so that every output given a bare ``gr.skip()``
(exactly ``{"__type__": "update"}``) is passed through as that same skip,
and only the other outputs go through Gradio's own post-processing. Gradio
6.31 treats a bare skip as a property update: it builds a new component from
the old one's constructor arguments and its configuration twice, for
nothing (the page is sent ``{"__type__": "update"}`` all the same). That
cost 0.4-1.5 ms per skipped output on the project's machine (as loaded): a
live page's update has 39 outputs, mostly skipped (24-60 ms), and a
classroom heartbeat 18 (7-21 ms), forty pages, every second. What a page is sent is unchanged: the
same skip in the same place, and the other outputs exactly as Gradio makes
them. Stateful outputs (``gr.State``, ``gr.BrowserState``), batched and
validator events, and a result that is not one value per output go through
Gradio's code unchanged.

What Gradio's slow path also did and this does not: replace the server's
copy of a skipped component by an equal one, and reset the session's deep-link
copy of its value (``SessionState.config_values``, read only by Gradio's
``/deep_link`` route, which the app does not use) to the constructor's
default; that copy now keeps the last value sent.

What it does not do: decide what is skipped (``live_stream``,
``classroom_panel``) or change Gradio otherwise. Where the installed Gradio
has no ``Blocks.postprocess_data`` of the expected shape it installs nothing
(``install`` returns False) and the app runs as before, only slower.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Sequence
from typing import Any

SKIP_TYPE = "update"  # what ``gr.skip()`` is: {"__type__": "update"}, nothing else
_MARK = "_debate_cheap_skips"


def is_skip(value: object) -> bool:
    """Whether ``value`` is exactly ``gr.skip()`` (a ``gr.update`` with properties is not)."""
    return type(value) is dict and len(value) == 1 and value.get("__type__") == SKIP_TYPE


def skipped(outputs: Sequence[Any], predictions: object) -> list[int] | None:
    """The indices of ``outputs`` given a bare skip that may bypass Gradio's post-processing, or None where
    none may (the result is not one value per output, or nothing is skipped)."""
    if not isinstance(predictions, list | tuple) or len(predictions) != len(outputs) or len(outputs) < 2:
        return None
    found = [i for i, value in enumerate(predictions) if is_skip(value) and not getattr(outputs[i], "stateful", True)]
    return found or None


def install() -> bool:
    """Wrap ``gradio.Blocks.postprocess_data`` (idempotent); False where this Gradio's differs from the one
    the wrapper was written for (then nothing is changed)."""
    from gradio.blocks import Blocks

    original = Blocks.postprocess_data
    if getattr(original, _MARK, False):
        return True
    if not inspect.iscoroutinefunction(original):
        return False
    if list(inspect.signature(original).parameters) != ["self", "block_fn", "predictions", "state"]:
        return False

    async def postprocess_data(self: Any, block_fn: Any, predictions: Any, state: Any) -> list[Any]:
        outputs = list(block_fn.outputs)
        found = None
        if not block_fn.batch and not block_fn.is_validator_function:
            found = skipped(outputs, predictions)
        if found is None:
            return await original(self, block_fn, predictions, state)
        skip = set(found)
        kept = [i for i in range(len(outputs)) if i not in skip]
        result: list[Any] = [{"__type__": SKIP_TYPE} for _ in outputs]
        if kept:
            rest = copy.copy(block_fn)  # the same event, with only the outputs that change
            rest.outputs = [outputs[i] for i in kept]
            values = [predictions[i] for i in kept]
            # one output left: Gradio takes a single value for an event with one output
            done = await original(self, rest, values if len(kept) > 1 else values[0], state)
            for i, value in zip(kept, done, strict=True):
                result[i] = value
        return result

    setattr(postprocess_data, _MARK, True)
    postprocess_data.__wrapped__ = original  # type: ignore[attr-defined]
    postprocess_data.__doc__ = original.__doc__
    Blocks.postprocess_data = postprocess_data  # type: ignore[method-assign]
    return True
