"""The web API, one router per resource: games, archive (PDN), analysis, pages and
WebSockets (docs/CONTRACTS.md §3)."""
