"""Text progress bars for the topic picker's table cells."""

from __future__ import annotations

from rich.text import Text

FULL, EMPTY = "█", "░"


def progress_bar(done: float, width: int = 12) -> Text:
    """A bar ``width`` cells wide for a fraction ``done`` (0..1), then the percentage.

    Finished topics are green; the percentage is rounded down, so 100 % means done.
    """
    done = min(max(done, 0.0), 1.0)
    filled = int(done * width)
    style = "green" if done >= 1 else "cyan"
    bar = Text(FULL * filled, style=style) + Text(EMPTY * (width - filled), style="dim")
    return bar + Text(f" {int(done * 100):3d}%")
