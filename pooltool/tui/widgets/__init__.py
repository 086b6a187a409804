"""Widgets of the judging UI, grouped by screen area."""
