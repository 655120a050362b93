"""The engine: every rule about memories, once, for all front ends (``memtui.engine.api``)."""
