"""The web app's parts: a view model folded from events, HTML and plotly renderers,
live sessions, and the Gradio panels (set-up, live view with the human seat, replay).

Live view and replay go through the same ``DebateView`` and the same renderers.
``app.py`` at the top level assembles and launches the app.
"""
