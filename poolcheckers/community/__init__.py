"""The community half of the site as plain code: accounts, sessions, the lobby,
Glicko-2 ratings and game-flow helpers.  Nothing here knows the web server or
the database: the server wires these models to its routes and store
(``docs/COMMUNITY.md``)."""
