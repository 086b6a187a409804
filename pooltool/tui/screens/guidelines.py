"""The guidelines dialog (``g``): what to judge by, for one topic.

Three parts, all store data (``pooltool guidelines`` sets them; see
:mod:`pooltool.store.guidelines`): the grade scale with each grade's key, name
and definition; the collection-wide guidelines; the topic's instructions, or
its narrative when none were set. Texts are reflowed
(:func:`~pooltool.tui.reflow.reflow`) and shown as written, never as markup.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from pooltool.records import Topic
from pooltool.store.guidelines import Guidelines
from pooltool.store.settings import GradeLevel
from pooltool.text import visible
from pooltool.tui.reflow import reflow

NO_DEFINITION = "no definition (pooltool guidelines --grade-definition GRADE:TEXT)"
NO_GUIDELINES = "none set (pooltool guidelines --text FILE)"
NO_INSTRUCTIONS = "none: no instructions (pooltool guidelines --topic T --text FILE) and no narrative"


def guidelines_text(topic: Topic, scale: list[GradeLevel], guidelines: Guidelines) -> Text:
    """The dialog's text: grades with definitions, collection guidelines, topic
    instructions (else the narrative). User text is appended as plain text."""
    text = Text()
    _heading(text, "Grades")
    for level in scale:
        text.append(f" {visible(level.key)} ", style="bold reverse")
        text.append(" ")
        text.append(visible(level.name), style="bold")
        text.append(f" (grade {level.grade}): ")
        definition = guidelines.grades.get(level.grade)
        text.append(reflow(definition) if definition else NO_DEFINITION,
                    style="" if definition else "dim italic")
        text.append("\n")
    _heading(text, "Collection guidelines")
    _body(text, guidelines.collection, NO_GUIDELINES)
    instructions = guidelines.topics.get(topic.topic, "")
    label = "instructions" if instructions else "narrative (no instructions set)"
    _heading(text, f"Topic {visible(topic.topic)}: {label}")
    _body(text, instructions or topic.narrative, NO_INSTRUCTIONS)
    return text


def _heading(text: Text, heading: str) -> None:
    if text:
        text.append("\n")
    text.append(heading, style="bold underline")
    text.append("\n")


def _body(text: Text, body: str, missing: str) -> None:
    text.append(reflow(body) if body else missing, style="" if body else "dim italic")
    text.append("\n")


class GuidelinesScreen(ModalScreen[None]):
    """Shows :func:`guidelines_text`; Escape, g, q or ? closes it; ↑ ↓ PgUp PgDn scroll."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,g,q,question_mark", "close", "Close")]

    def __init__(self, topic: Topic, scale: list[GradeLevel], guidelines: Guidelines,
                 **kwargs: str) -> None:
        super().__init__(**kwargs)
        self.topic, self.scale, self.guidelines = topic, scale, guidelines

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="guidelines"):
            yield Static(Text(f"Guidelines · topic {visible(self.topic.topic)} · Esc closes"),
                         id="guidelines-title")
            yield Static(guidelines_text(self.topic, self.scale, self.guidelines),
                         id="guidelines-text")

    def on_mount(self) -> None:
        self.query_one("#guidelines", VerticalScroll).focus()

    def action_close(self) -> None:
        """Back to where it was opened."""
        self.dismiss(None)
