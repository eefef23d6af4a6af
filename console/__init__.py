"""The terminal front end: ``python -m debate_core`` (run a debate, list protocols), the rich renderer.

What it does: ``cli`` parses commands and runs debates, ``terminal`` renders
events (live and replayed by ``python -m storage show``), ``human`` lets a
person answer any request kind on one line. It sits beside ``ui`` (the web
app): both are consumers of ``debate_core``'s events.

What it does not do: anything the engine does.
"""
