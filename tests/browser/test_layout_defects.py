"""Layout defects found by walking through the page in Chromium, each shown fixed (issue #30, item 7: 5, 7-10).

Each test sets the viewport the defect was seen at and measures the page as a person sees it: where the
buttons and the words form are, what has the focus, where a dropdown's text ends, what colour the plots
are in dark mode, and whether the answers chart's legend covers its axis title.
"""

from __future__ import annotations

from tests.browser.conftest import open_page, screenshot
from tests.browser.pages import STEP_GUARD_MS, Person, choose, seat_and_start, wait_for
from tests.browser.test_page_defects import _luminance
from ui.backend_choice import EMBEDDED_LLAMACPP

LAPTOP = (1440, 900)
PHONE = (400, 860)

# Boxes as the page lays them out, measured at one moment (the page moves as the transcript grows):
# {left, top, right, bottom} in the viewport, or None for one that is absent.
BOXES_JS = """(selectors) => selectors.map((selector) => {
  const node = document.querySelector(selector);
  if (!node) return null;
  const box = node.getBoundingClientRect();
  return {left: box.left, top: box.top, right: box.right, bottom: box.bottom};
})"""


def boxes(page, *selectors: str) -> list[dict[str, float]]:
    found = page.evaluate(BOXES_JS, list(selectors))
    for selector, shown in zip(selectors, found, strict=True):
        assert shown is not None, f"{selector} is not on the page"
    return [dict(shown) for shown in found]


def box(page, selector: str) -> dict[str, float]:
    return boxes(page, selector)[0]


def in_view(page, selector: str) -> bool:
    """Whether ``selector`` is wholly inside the viewport as it is scrolled now."""
    shown = box(page, selector)
    width, height = page.viewport_size["width"], page.viewport_size["height"]
    return shown["top"] >= 0 and shown["left"] >= 0 and shown["bottom"] <= height and shown["right"] <= width


def stop(page) -> None:
    """Stop the debate if it still runs (these tests only needed it drawn; in one step: it may end meanwhile)."""
    page.evaluate("document.querySelector('#stop:not([disabled])')?.click()")


def overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return a["left"] < b["right"] and b["left"] < a["right"] and a["top"] < b["bottom"] and b["top"] < a["bottom"]


def visible_labels(page, prefix: str) -> list[str]:
    """The shown component labels that start with ``prefix``."""
    return list(
        page.evaluate(
            """(prefix) => [...document.querySelectorAll('[data-testid=block-info]')]
                 .filter((label) => label.offsetParent !== null)
                 .map((label) => label.textContent.trim()).filter((text) => text.startsWith(prefix))""",
            prefix,
        )
    )


def test_start_and_demo_are_in_view_on_a_first_visit_on_a_laptop_and_near_the_top_on_a_phone(browser, app_url):
    for width, height in (LAPTOP, PHONE):
        page = open_page(browser, app_url, width=width, height=height)
        try:
            assert page.evaluate("window.scrollY") == 0
            for button in ("#start", "#demo"):
                assert in_view(page, button), (width, button, box(page, button))
                shown, setup = boxes(page, button, "#setup")
                assert shown["bottom"] <= setup["top"]  # above the open set-up form
            assert page.locator("#setup").is_visible()  # the set-up is still open on a first visit
            # what Start answers (a refusal) shows beside it, not under the form
            page.locator("#setup-answer textarea, #setup-answer input").first.fill("Z")  # not an option's label
            page.evaluate("window.scrollTo(0, 0)")
            page.locator("#start").click()
            wait_for(lambda page=page: "Cannot start" in page.locator("#notice").inner_text(), "the refusal")
            assert in_view(page, "#notice")
        finally:
            page.context.close()


def test_the_form_the_debate_waits_for_opens_in_view_focused_with_one_answer_on_the_page(browser, app_url):
    page = open_page(browser, app_url, width=LAPTOP[0], height=LAPTOP[1])
    try:
        seat_and_start(page)
        page.wait_for_selector("#seat-prompt:has-text('Before the debate')", timeout=STEP_GUARD_MS)
        form = "#seat"
        # at the top of the page the form would be under the fold: it was scrolled into view
        wait_for(lambda: in_view(page, form), "the form in view")
        assert page.evaluate("document.querySelector('#seat').getBoundingClientRect().bottom + scrollY") > LAPTOP[1]
        wait_for(lambda: page.evaluate("!!document.activeElement?.closest('#seat')"), "the focus in the form")
        assert page.evaluate("document.activeElement.id") != "start"
        # one answer group: the form's; the always-visible answer is back once the form is answered
        assert visible_labels(page, "Your answer") == ["Your answer"]
        assert page.locator("#seat-answer").count() == 0
        Person(page).answer("B")
        page.wait_for_selector("#seat-answer", timeout=STEP_GUARD_MS)
        wait_for(lambda: page.locator("#seat-answer input[value=B]").is_checked(), "the answer kept")
        assert visible_labels(page, "Your answer") == ["Your answer (always yours to change)"]
        stop(page)
    finally:
        page.context.close()


# The text's right edge: where the value's glyphs end, or where the input clips them (its content box).
TEXT_EDGE_JS = """(selector) => {
  const input = document.querySelector(selector + ' input');
  const arrow = document.querySelector(selector + ' .icon-wrap');
  const style = getComputedStyle(input);
  const context = document.createElement('canvas').getContext('2d');
  context.font = style.font;
  const box = input.getBoundingClientRect();
  const left = box.left + parseFloat(style.borderLeftWidth) + parseFloat(style.paddingLeft);
  const right = box.right - parseFloat(style.borderRightWidth) - parseFloat(style.paddingRight);
  const text = context.measureText(input.value).width;
  return {text: left + text, clip: right, arrow: arrow.getBoundingClientRect().left};
}"""


def test_the_model_dropdown_text_stops_left_of_its_arrow(browser, app_url):
    page = open_page(browser, app_url, width=LAPTOP[0], height=LAPTOP[1])
    try:
        choose(page, "backend-choice", EMBEDDED_LLAMACPP)  # the longest choice
        page.locator("body").click(position={"x": 5, "y": 5})  # close the list
        for width, height in (LAPTOP, PHONE):
            page.set_viewport_size({"width": width, "height": height})
            edge = page.evaluate(TEXT_EDGE_JS, "#backend-choice")
            assert edge["text"] > edge["arrow"], edge  # the name is longer than the box: the case that matters
            assert min(edge["text"], edge["clip"]) <= edge["arrow"], (width, edge)
    finally:
        page.context.close()


# Each plot's background: the colour its SVG and plot area paint, and the page's colour behind them.
PLOT_COLOURS_JS = """(selector) => {
  const svg = document.querySelector(selector + ' .main-svg');
  const area = document.querySelector(selector + ' .bglayer rect.bg');
  let back = svg.parentElement, bg = 'rgba(0, 0, 0, 0)';
  while (back && (bg === 'rgba(0, 0, 0, 0)' || bg === 'transparent')) {
    bg = getComputedStyle(back).backgroundColor; back = back.parentElement;
  }
  const areaStyle = area ? getComputedStyle(area) : null;
  return {
    svg: getComputedStyle(svg).backgroundColor,
    area: areaStyle ? [areaStyle.fill, areaStyle.fillOpacity] : null,
    behind: bg,
    title: getComputedStyle(document.querySelector(selector + ' .gtitle')).fill,
  };
}"""


def _transparent(colour: str) -> bool:
    return colour in ("transparent", "rgba(0, 0, 0, 0)")


def _contrast(a: str, b: str) -> float:
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def assert_dark_plot(page, selector: str) -> None:
    colours = page.evaluate(PLOT_COLOURS_JS, selector)
    assert _transparent(colours["svg"]), colours
    assert colours["area"] is None or float(colours["area"][1]) == 0 or _luminance(colours["area"][0]) < 0.2, colours
    assert _luminance(colours["behind"]) < 0.2, colours  # the dark page shows through, not white
    assert _contrast(colours["title"], colours["behind"]) >= 4.5, colours


def test_plots_take_the_dark_theme(browser, app_url):
    page = open_page(browser, app_url, width=LAPTOP[0], height=LAPTOP[1], dark=True)
    try:
        page.click("#demo")
        plots = ("#urgency-plot", "#trajectory-plot", "#history-plot")
        wait_for(lambda: all(page.locator(f"{plot} .main-svg .gtitle").count() for plot in plots), "the three plots")
        for plot in plots:
            assert_dark_plot(page, plot)
        screenshot(page, "plots-dark")
        stop(page)
        page.get_by_role("tab", name="Analysis").click()
        wait_for(lambda: page.locator("#analysis-choice input").input_value() != "", "an experiment")
        page.click("#analysis-show")
        wait_for(lambda: page.locator("#analysis-figure-0 .main-svg .gtitle").count() > 0, "the study's figures")
        assert_dark_plot(page, "#analysis-figure-0")
    finally:
        page.context.close()


# What covers the middle of ``selector`` (scrolled into view at once): null when it is the figure itself.
COVER_JS = """(selector) => {
  const node = document.querySelector(selector);
  node.scrollIntoView({block: 'center', behavior: 'instant'});
  const box = node.getBoundingClientRect();
  const top = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
  if (top && (node.contains(top) || top.contains(node) || top.closest('.main-svg') !== null)) return null;
  return top ? top.outerHTML.slice(0, 200) : 'nothing';
}"""


def test_the_answers_chart_legend_clears_its_axis_title_and_its_title(browser, app_url):
    chart = "#trajectory-plot"
    for width, height in (LAPTOP, PHONE):
        page = open_page(browser, app_url, width=width, height=height)
        try:
            page.click("#demo")
            # every agent has answered and the correct answer is drawn: the legend at its widest
            wait_for(lambda page=page: page.locator(f"{chart} .legend .traces").count() >= 4, "the legend")
            parts = (".legend", ".xtitle", ".gtitle", ".main-svg")
            legend, axis, title, figure = boxes(page, *(f"{chart} {part}" for part in parts))
            assert not overlap(legend, axis), (width, legend, axis)
            assert not overlap(legend, title), (width, legend, title)
            assert legend["right"] <= figure["right"] + 1 and legend["top"] >= figure["top"]  # not cut off either
            page.mouse.move(0, 0)  # off the charts
            for shown in (chart, "#urgency-plot", "#history-plot"):  # no title under plotly's toolbar or a label
                covered = page.evaluate(COVER_JS, f"{shown} .gtitle")
                assert covered is None, f"{shown}'s title is covered by {covered} at {width} px"
            stop(page)
        finally:
            page.context.close()
