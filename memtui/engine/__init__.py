"""The engine: every rule about memories lives here, once, for all front ends.

It never imports Textual (a test checks this). Front ends call ``Engine`` (``memtui.engine.api``).
"""
