"""The Textual app: browse and curate memories in the terminal (``main.create_app``)."""
