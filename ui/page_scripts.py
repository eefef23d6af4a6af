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
  const follow = (chart) => {
    if (chart.__keepsZoom || !chart._fullLayout || !chart.on || !window.Plotly) return;
    const key = chart.parentElement && chart.parentElement.closest('[id]')?.id;
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
