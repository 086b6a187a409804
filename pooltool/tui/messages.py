"""Messages the judging UI's screens send up to the app."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from pooltool.errors import StoreConnectionLost


@dataclass
class TopicChosen(Message):
    """The assessor picked a topic to judge."""

    topic: str


@dataclass
class GradeRecorded(Message):
    """A grade was given (committed, or queued while the store is busy)."""

    topic: str
    docno: str
    grade: int


@dataclass
class JudgmentUndone(Message):
    """The assessor undid their latest judgment of a document."""

    topic: str
    docno: str


@dataclass
class NoteChanged(Message):
    """The assessor saved a note (with a judgment, or as a draft)."""

    topic: str
    docno: str


@dataclass
class CopySplit(Message):
    """The assessor split a copy off the document on screen (committed, or queued)."""

    topic: str
    docno: str


@dataclass
class LeaveTopic(Message):
    """The assessor left the judging screen for the topic picker."""

    topic: str


@dataclass
class StoreUnreachable(Message):
    """A read of the store found its server gone (the app keeps writes in the journal
    and connects again)."""

    lost: StoreConnectionLost
