"""The rules engine (stdlib only): cards, combinations, legal plays, bidding, the hand, scoring, matches and records."""
