"""The terminal judging UI (``pooltool judge``): a Textual app for assessors."""

from pooltool.tui.app import JudgeApp, make_app

__all__ = ["JudgeApp", "make_app"]
