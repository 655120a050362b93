"""memtui: see and curate what AI coding agents remember (layers: docs/ARCHITECTURE.md)."""

__version__ = "0.1.0"
