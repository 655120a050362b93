"""The command line: a thin front end over the engine; its names, JSON shapes and exit codes stay stable."""
