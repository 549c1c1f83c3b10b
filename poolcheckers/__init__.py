"""American Pool Checkers."""
