"""The web app's server side: JSON API, WebSockets and storage (docs/CONTRACTS.md §3)."""
