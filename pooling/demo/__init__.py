"""Synthetic ARQMath-like demo collection and runs (see generate.py)."""
