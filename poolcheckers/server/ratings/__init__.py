"""Ratings: Glicko-2 (model), the rating of finished games (service), their
repository, and the player pages and leaderboards."""
