"""The PostgreSQL backend of the store (a team's shared store), imported only for a
``postgresql://`` target: SQLite users never load psycopg."""
