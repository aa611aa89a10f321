"""Textual-free view models of the console: what each view shows, computed from plain engine data.

Nothing here imports textual or rich; tests drive these directly, and the views (tui/views/)
only turn their results into rows and styles.
"""
