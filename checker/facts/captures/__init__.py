"""Captures: what a registered body reads from outside itself, and whether that can change after compilation."""
