"""Modal screens, each dismissed with a typed result (a dataclass, a bool, an id; None: cancel)."""
