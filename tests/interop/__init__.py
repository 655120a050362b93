"""Contract tests against the real agent programs (Claude Code, Codex CLI, Gemini CLI).

See ``tests/interop/README.md``: the pinned versions, how the programs are installed, the fake
model server, and how to run the suite against newer versions.
"""
