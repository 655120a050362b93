"""``memtui mcp``: agents read and write memtui's store over the Model Context Protocol."""
