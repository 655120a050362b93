"""Widgets of the app: line lists (memory list, item list), the status bar, panels."""
