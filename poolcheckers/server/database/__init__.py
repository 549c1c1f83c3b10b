"""The database: every table, engines and URLs, migrations, and the one executor
that runs blocking database work."""
