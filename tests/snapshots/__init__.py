"""Helpers for the app's Pilot and snapshot tests."""
