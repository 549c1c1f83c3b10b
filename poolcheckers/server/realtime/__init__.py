"""The one real-time pipeline: PostgreSQL LISTEN/NOTIFY between server processes
(one LISTEN connection per process, which catches up after it was lost), game
changes to WebSocket subscribers, and "this changed" notices by topic."""
