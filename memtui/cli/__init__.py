"""The command line: a thin front end over the engine (spec/70 is its contract)."""
