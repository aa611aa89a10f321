"""The console (Textual). This package is the only one that imports textual.

Textual paints the screen on a fixed grid of frames (TEXTUAL_FPS, 60 by default): a key handled
just after a frame waits up to 16.7 ms for the next one before anything is drawn. Measured during
a 10,000-vertex apply (benchmarks/tui_latency.py, old and new alternating in one run, load
1.2-1.4): at 144 frames a second the key's paint starts 6.5-8 ms after it was sent instead of
10-13 ms (median), p95 key -> screen 39-44 ms instead of 51-59 ms, with the same event-loop CPU
(screen updates happen only when something changed). A user's own TEXTUAL_FPS is kept. This must
run before textual is imported (its constants are read once)."""
import os as _os

_os.environ.setdefault("TEXTUAL_FPS", "144")
