"""An output an event leaves alone (``gr.skip()``) costs the server nothing, and the page is sent the same.

A live page's update has 39 outputs and a classroom heartbeat 18, most of them skipped; Gradio 6 rebuilt
every skipped component on every update (issue #30: forty watching pages kept a core busy). With
``ui.cheap_skips`` installed, a skipped output is passed through untouched, and every other output is
post-processed by Gradio exactly as before.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from typing import Any

import gradio as gr
import pytest
from gradio.blocks import Blocks
from gradio.state_holder import SessionState

from ui import cheap_skips


@pytest.fixture(scope="module")
def page() -> tuple[Blocks, Any, list[Any]]:
    assert cheap_skips.install()
    with gr.Blocks() as blocks:
        kept = gr.State(0)
        outputs = [gr.HTML("", elem_id="status"), gr.JSON(None), gr.Radio(["a", "b"]), gr.Markdown(""), kept]
        trigger = gr.Button()
        trigger.click(lambda: None, outputs=outputs)
    block_fn = next(iter(blocks.fns.values()))
    return blocks, block_fn, outputs


def run(blocks: Blocks, block_fn: Any, predictions: Any, state: SessionState, *, gradio: bool = False) -> Any:
    process = Blocks.postprocess_data.__wrapped__ if gradio else Blocks.postprocess_data  # type: ignore[attr-defined]
    # in a thread of its own: a browser test earlier in the same run leaves Playwright's loop running in this one
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, process(blocks, block_fn, predictions, state)).result()


def test_installing_twice_wraps_once() -> None:
    assert cheap_skips.install() and cheap_skips.install()
    assert not getattr(Blocks.postprocess_data.__wrapped__, "_debate_cheap_skips", False)  # type: ignore[attr-defined]


def test_an_update_of_one_sentence_is_sent_as_gradio_sends_it(page: tuple[Blocks, Any, list[Any]]) -> None:
    blocks, block_fn, _ = page
    for values in (
        ["<b>turn 3</b>", gr.skip(), gr.skip(), gr.skip(), gr.skip()],
        [gr.skip(), {"seq": 2, "from": 4, "lines": ["<p>x</p>"]}, gr.skip(), gr.skip(), 5],
        [gr.skip(), gr.skip(), gr.update(visible=False), "**done**", gr.skip()],
        [gr.skip()] * 5,
        ["a", {"b": 1}, gr.update(choices=["c"]), "d", 7],
    ):
        ours = run(blocks, block_fn, list(values), SessionState(blocks))
        theirs = run(blocks, block_fn, list(values), SessionState(blocks), gradio=True)
        assert ours == [bare(value) for value in theirs]


def bare(value: Any) -> Any:
    """Gradio 6.31's skip of an HTML component also carries the skip itself as the HTML's ``props`` (nothing
    the page shows); the wrapper sends the skip alone."""
    if isinstance(value, dict) and value.get("props") == {"__type__": "update"}:
        return {key: item for key, item in value.items() if key != "props"}
    return value


def test_a_skipped_component_is_not_rebuilt(page: tuple[Blocks, Any, list[Any]]) -> None:
    blocks, block_fn, outputs = page
    state = SessionState(blocks)
    before = {block._id: state.blocks_config.blocks[block._id] for block in outputs[:4]}
    sent = run(blocks, block_fn, ["<b>new</b>", gr.skip(), gr.skip(), gr.skip(), gr.skip()], state)
    assert sent[1:4] == [{"__type__": "update"}] * 3
    assert all(state.blocks_config.blocks[key] is block for key, block in before.items())


def test_a_skipped_state_is_left_to_gradio(page: tuple[Blocks, Any, list[Any]]) -> None:
    blocks, block_fn, outputs = page
    state = SessionState(blocks)
    run(blocks, block_fn, [gr.skip(), gr.skip(), gr.skip(), gr.skip(), 3], state)
    sent = run(blocks, block_fn, ["<b>x</b>", gr.skip(), gr.skip(), gr.skip(), gr.skip()], state)
    assert sent[4] is None  # Gradio sends a state nothing, and keeps its value
    assert state[outputs[4]._id] == 3


def test_only_a_bare_skip_is_a_skip() -> None:
    assert cheap_skips.is_skip(gr.skip())
    assert not cheap_skips.is_skip(gr.update(visible=True))
    assert not cheap_skips.is_skip({"__type__": "update", "value": None})
    assert not cheap_skips.is_skip({"seq": 1})
    assert cheap_skips.skipped([object()] * 2, [gr.skip()]) is None  # not one value per output: Gradio decides
