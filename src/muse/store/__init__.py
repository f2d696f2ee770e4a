"""Storage: engine and sessions (SQLite default, PostgreSQL), metadata, migrations, CAS, jobs."""
