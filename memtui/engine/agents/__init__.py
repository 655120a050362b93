"""Other agents' memory stores: Claude Code and Gemini CLI.

Readers (``claude.read_claude_home``, ``gemini.read_gemini_home``) are read-only and report
every bad item as a ``Problem``. Curations (``curation``, ``inbox``, ``switches``) are
``WritePlan``s shown first and written by ``plans.apply_plan`` only with an explicit write
flag, through the one safe-write helper (``errors.AGENT_FILES``, ``engine.safe_files``). ``overview.agents_overview`` is
the one-row-per-agent-and-project view (Codex included). ``interop.AgentsApi``
(``engine.agents``) imports into memtui's store and exports in each agent's format.
"""
