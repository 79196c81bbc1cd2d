"""Seeing cards: frame sources, the two-stage detector (corner finder + index reader) and its settings,
corner-to-card grouping. Knows nothing of the rules."""
