"""The Textual app: browse and curate memories in the terminal.

``memtui.app.main.create_app`` builds the app (the command line and the tests share it);
``memtui.app.main.run_app`` runs it for a command-line context.
"""
