"""The store: the only code that runs SQL. Plain dataclasses cross its interface."""
