"""The PostgreSQL backend of the store (a team's shared store): ``open_postgres_store``.

Imported only when a store target is a ``postgresql://`` URL, so SQLite users never load
psycopg.
"""
