"""Modal screens. Each returns a typed result through ``dismiss`` (a dataclass, a bool, an id
or None for cancel)."""
