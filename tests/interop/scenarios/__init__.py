"""Each agent's scenario: run the real program in a throwaway home and keep what it wrote.

A module per agent (``claude_code``, ``codex``, ``gemini``) with ``regenerate(dest: Path)``;
``scripts/regenerate-agent-homes`` calls them.
"""
