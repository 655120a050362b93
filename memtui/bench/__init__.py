"""Benchmarks (run as modules, e.g. ``python -m memtui.bench.redaction``)."""
