import pathlib, sys; sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))  # noqa: E401, E702, I001
from memtui.bench.redaction import main  # noqa: E402, I001
raise SystemExit(main())
