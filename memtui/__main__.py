"""``python -m memtui`` runs the command line."""

from memtui.cli.main import main

raise SystemExit(main())
