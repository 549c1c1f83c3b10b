"""Real-time fan-out: game changes to WebSocket subscribers, and PostgreSQL
LISTEN/NOTIFY between server processes."""
