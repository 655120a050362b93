"""Other agents' memory stores: Claude Code and Gemini CLI.

Readers (``claude``, ``gemini``) are read-only and report every bad item as a ``Problem``.
Curations (``curation``, ``inbox``, ``switches``) are ``WritePlan``s, shown first and written
by ``plans.apply_plan`` only with an explicit write flag, through ``errors.AGENT_FILES``.
"""
