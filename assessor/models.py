"""Assignments and judgments live here (the judging issue); this app has no tables yet."""
