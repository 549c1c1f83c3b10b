"""Accounts: users, password hashes and their hashing slots, sessions, the
session cookie and the cross-site guard."""
