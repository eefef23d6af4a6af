"""The scripts the live page runs in the browser: written here, handed to Gradio by ``app`` and ``live_panel``.

What it does: ``page_js()`` is the page's load script (the live controls' keyboard shortcuts, from the registered
live-control sets; the address that follows the live debate, ``?live=ID``; the words form brought into view and
focused when the debate asks something). ``TRANSCRIPT_JS`` applies a transcript update (the lines from the first
that changed, sent by ``live_stream``) and keeps the reader's scroll position unless they are at the bottom.
``KEEP_ZOOM_JS`` keeps the reader's drag-zoom on a plot that is redrawn.

What it does not do: decide what is sent (``live_stream``), lay out components (``live_panel``) or check who may
act (a script is a courtesy: the server's handlers check every control, ``live_handlers``).
"""

from __future__ import annotations

import json

from ui import web_plugins

# Applied by the page whenever ``delta`` changes: replace the transcript's lines from ``from`` on.
TRANSCRIPT_JS = """
(delta) => {
  if (!delta || !delta.lines) return;
  const box = document.getElementById('transcript');
  if (!box) return;
  const atBottom = box.scrollHeight - box.scrollTop - box.clientHeight < 40;
  const page = document.scrollingElement;
  const pageAtBottom = page.scrollHeight - page.scrollTop - window.innerHeight < 40;
  while (box.children.length > delta.from) box.removeChild(box.lastElementChild);
  box.insertAdjacentHTML('beforeend', delta.lines.join(''));
  if (atBottom) box.scrollTop = box.scrollHeight;
  if (document.body.classList.contains('audience') && pageAtBottom) page.scrollTop = page.scrollHeight;
  window.__transcriptUpdatedAt = Date.now();
}
"""


# The page's script that keeps a reader's zoom on a plot: Gradio 6 mounts a new plotly chart for every value
# a plot is sent (the old one, and the zoom dragged on it, are gone), so the ranges the reader chose on each
# plot (by its container's id) are noted from plotly's relayout events and put back on the chart that
# replaces it, for as long as the page shows the same debate; a double-click (autoscale) forgets them.
KEEP_ZOOM_JS = """
() => {
  if (window.__keptZoom) return;
  window.__keptZoom = {};
  const debate = () => document.querySelector('#status .status[data-debate]')?.dataset.debate || '';
  const AXIS = /^[xy]axis\\d*\\.(range(\\[[01]\\])?|autorange)$/;
  const keyOf = (chart) => chart.parentElement && chart.parentElement.closest('[id]')?.id;
  const follow = (chart) => {
    if (chart.__keepsZoom || !chart._fullLayout || !chart.on || !window.Plotly) return;
    const key = keyOf(chart);
    if (!key) return;
    chart.__keepsZoom = true;
    const restore = () => {  // after every drawing of this chart, until it shows the reader's ranges
      const kept = window.__keptZoom[key];
      if (!kept || kept.debate !== debate()) return;
      const off = Object.entries(kept.ranges).some(([name, value]) => {
        const found = name.match(/^([xy]axis\\d*)\\.range(?:\\[([01])\\])?$/);
        if (!found) return false;
        const range = (chart._fullLayout[found[1]] || {}).range || [];
        const shown = found[2] === undefined ? range : range[Number(found[2])];
        return JSON.stringify(shown) !== JSON.stringify(value);
      });
      if (off) window.Plotly.relayout(chart, kept.ranges);
    };
    restore();
    chart.on('plotly_afterplot', restore);
    chart.on('plotly_relayout', (change) => {
      const ranges = Object.fromEntries(Object.entries(change).filter(([name]) => AXIS.test(name)));
      if (!Object.keys(ranges).length) return;
      if (Object.entries(ranges).some(([name, on]) => name.endsWith('autorange') && on)) {
        delete window.__keptZoom[key];
        return;
      }
      const old = window.__keptZoom[key];
      const same = old && old.debate === debate();
      window.__keptZoom[key] = {debate: debate(), ranges: {...(same ? old.ranges : {}), ...ranges}};
    });
  };
  new MutationObserver(() => document.querySelectorAll('.js-plotly-plot').forEach(follow))
    .observe(document.body, {subtree: true, childList: true});
  // A drag begun on a chart that is drawn again before the mouse is released (a redraw in the middle of the drag)
  // would zoom nothing: the box dragged (read on the chart the drag began on, as plotly reads it) is applied on
  // release to the chart shown then, unless it shows that box already (plotly zoomed it, or it was drawn with
  // the zoom noted). An axis moved less than MINDRAG pixels along keeps its range, as in plotly; a fixed one too.
  const MINDRAG = 8;
  const AXES = ['xaxis', 'yaxis'];
  let drag = null;
  const point = (layout, box, x, y) => {  // the data coordinates of a pixel of the page, on this chart's axes
    const size = layout._size;
    return {xaxis: layout.xaxis.p2r(x - box.left - size.l), yaxis: layout.yaxis.p2r(y - box.top - size.t)};
  };
  document.addEventListener('mousedown', (event) => {
    drag = null;
    const chart = event.button === 0 && event.target.closest && event.target.closest('.js-plotly-plot');
    const layout = chart && event.target.closest('.nsewdrag') && chart._fullLayout;
    if (!layout || !layout.xaxis || !layout.yaxis || !layout.xaxis.p2r || !layout.yaxis.p2r) return;
    const box = chart.getBoundingClientRect();
    const pixel = point(layout, box, 1, 1), zero = point(layout, box, 0, 0);
    drag = {
      layout, box, key: keyOf(chart), x: event.clientX, y: event.clientY,
      from: point(layout, box, event.clientX, event.clientY),
      pixel: Object.fromEntries(AXES.map((name) => [name, Math.abs(pixel[name] - zero[name])])),
    };
  }, true);
  document.addEventListener('mouseup', (event) => {
    const begun = drag;
    drag = null;
    if (!begun || !begun.key || !window.Plotly) return;
    const to = point(begun.layout, begun.box, event.clientX, event.clientY);  // before plotly's own end of the drag
    const moved = {xaxis: Math.abs(event.clientX - begun.x), yaxis: Math.abs(event.clientY - begun.y)};
    setTimeout(() => {  // after plotly's own end of the drag
      const chart = document.getElementById(begun.key)?.querySelector('.js-plotly-plot');
      const layout = chart && chart._fullLayout;
      if (!layout) return;
      const ranges = {};
      for (const name of AXES) {
        const axis = layout[name];
        if (!axis || axis.fixedrange || begun.layout[name].fixedrange || moved[name] < MINDRAG) continue;
        const ends = [begun.from[name], to[name]].sort((a, b) => a - b);
        if (axis.range && axis.range[0] > axis.range[1]) ends.reverse();  // a reversed axis stays reversed
        const near = (axis.range || []).length === 2
          && axis.range.every((end, i) => Math.abs(end - ends[i]) <= 2 * begun.pixel[name]);
        if (near) continue;  // the chart shows the box already
        ranges[`${name}.range[0]`] = ends[0];
        ranges[`${name}.range[1]`] = ends[1];
      }
      if (!Object.keys(ranges).length) return;
      follow(chart);  // the ranges are noted as the reader's (above), and put back on the charts that follow
      window.Plotly.relayout(chart, ranges);
    }, 0);
  }, true);
}
"""


# Run once when the page loads: keyboard shortcuts for the live controls (unless the person is typing),
# the address follows the live debate (?live=ID, so a reload re-attaches to it), and the words form is
# brought into view and focused whenever the debate asks the person something. KEYS and FOCUS are
# filled from the registered live controls (``page_js``).
PAGE_JS_TEMPLATE = """
() => {
  if (window.__debateKeys) return;
  window.__debateKeys = true;
  new MutationObserver(() => {
    const shown = document.querySelector('#status .status[data-debate]');
    const id = shown && shown.dataset.debate;
    if (id && new URLSearchParams(location.search).get('live') !== id) {
      history.replaceState(null, '', '?live=' + encodeURIComponent(id));
    }
  }).observe(document.body, {subtree: true, childList: true});
  const ids = __KEYS__;
  const focus = __FOCUS__;
  const visible = (found) => found && found.offsetParent !== null;
  // The words form, each time it opens or asks something new: scrolled into view and its first field focused
  // (unless the person is typing in another box), so nobody has to look for what the debate waits for.
  const typing = (node) => node && (node.isContentEditable || node.tagName === 'TEXTAREA'
    || (node.tagName === 'INPUT' && ['text', 'search', 'number', ''].includes(node.type)));
  let asked = null;
  const inView = (form) => {
    const box = form.getBoundingClientRect();
    return box.top >= 0 && box.bottom <= window.innerHeight;
  };
  new MutationObserver(() => {
    const form = document.getElementById('seat');
    if (!form) { asked = null; return; }
    const key = form.querySelector('#seat-prompt')?.textContent || '';
    if (asked && asked.form === form && asked.key === key) return;
    const field = [...form.querySelectorAll('input, textarea')].find((node) => !node.disabled && visible(node));
    if (!field) return;
    asked = {form, key};
    form.scrollIntoView({block: 'nearest'});
    setTimeout(() => { if (form.isConnected && !inView(form)) form.scrollIntoView({block: 'nearest'}); }, 300);
    const active = document.activeElement;
    if (!(typing(active) && !form.contains(active))) field.focus({preventScroll: true});
  }).observe(document.body, {subtree: true, childList: true, characterData: true});
  document.addEventListener('keydown', (event) => {
    const target = event.target;
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (target && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName))) return;
    const key = event.key.toLowerCase();
    const box = (focus[key] || []).map((id) => document.querySelector(`#${id} textarea, #${id} input`)).find(visible);
    if (box) { event.preventDefault(); box.focus(); return; }  // type the words, then Enter sends them
    const button = (ids[key] || []).map((id) => document.getElementById(id)).find(visible);
    if (button) { event.preventDefault(); button.click(); }
  });
}
"""


def page_js() -> str:
    """The page's script, with the keys of every registered live-control set (a key may serve several sets:
    the visible one's button is pressed)."""
    keys: dict[str, list[str]] = {}
    focus: dict[str, list[str]] = {}
    for spec in web_plugins.live_controls():
        for press in spec.buttons:
            if press.key:
                keys.setdefault(press.key.lower(), []).append(press.elem_id)
        if spec.text is not None and spec.text.key:
            focus.setdefault(spec.text.key.lower(), []).append(spec.text.elem_id)
    return PAGE_JS_TEMPLATE.replace("__KEYS__", json.dumps(keys)).replace("__FOCUS__", json.dumps(focus))
