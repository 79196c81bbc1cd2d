"""Synthetic card-table scenes for training and testing the detector: decks, layouts, effects, labels."""
