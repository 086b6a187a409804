"""Hard-wrapped text reflowed into paragraphs, for screens that wrap text themselves.

No Textual here. Sources such as Cranfield (``cran.all.1400``) break every
line at about 70 characters; shown as stored, a wide pane holds ragged short
lines and a narrow one breaks each line twice. :func:`reflow` joins the lines
of a paragraph into one line and leaves the screen to wrap it.
"""

from __future__ import annotations

import re

from pooltool.text import visible

# a line that starts a list item: "- x", "* x", "• x", "1. x", "2) x", "a) x"
_ITEM = re.compile(r"^\s*(?:[-*•]|\d{1,3}[.)]|[a-z][)])\s")
# a word broken after its hyphen: "boundary-" then "layer" joins as "boundary-layer"
_HYPHEN_END = re.compile(r"\w-$")


def reflow(text: str) -> str:
    """Join the hard-wrapped lines of each paragraph into one line.

    A paragraph ends at a blank line (blank lines in a row become one blank
    line, which is kept), and a new one starts at an indented line (the
    indentation is kept: Cranfield indents a paragraph's first line) or at a
    list item (``- x``, ``* x``, ``1. x``, ``a) x``), which starts a new line.
    Within a paragraph, lines are stripped and joined with one space, except
    after a line that ends in a letter and a hyphen (``boundary-`` +
    ``layer`` gives ``boundary-layer``). Spaces inside a line are kept as
    written; blank lines at the end are dropped. CR LF and CR count as line ends.

    :param text: any text; ``""`` gives ``""``.
    :returns: the text with one line per paragraph and list item, paragraphs
        that were separated by blank lines separated by one blank line; any other
        control character shown visibly (:func:`pooltool.text.visible`: ESC as
        ``\\x1b``), since the text is data, never to be obeyed by a terminal.
    """
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    out: list[str] = []  # output lines; "" is a blank line
    joining = False  # the last output line is a paragraph that may continue
    for line in lines:
        if not line.strip():
            if out and out[-1] != "":
                out.append("")
            joining = False
        elif joining and not line[0].isspace() and not _ITEM.match(line):
            out[-1] = _join(out[-1], line.strip())
        else:
            out.append(line.rstrip())
            joining = True
    while out and out[-1] == "":
        out.pop()
    return visible("\n".join(out), lines=True)


def _join(paragraph: str, line: str) -> str:
    """``paragraph`` continued by ``line`` (see :func:`reflow`)."""
    if _HYPHEN_END.match(paragraph, max(len(paragraph) - 2, 0)):  # the end only
        return paragraph + line
    return paragraph + " " + line
