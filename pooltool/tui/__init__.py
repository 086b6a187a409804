"""The terminal judging UI (``pooltool judge``): a Textual app for assessors.

The app is :class:`pooltool.tui.app.JudgeApp` (build it with
:func:`pooltool.tui.app.make_app`); nothing is imported here, so that
:mod:`pooltool.tui.keys` loads without Textual.
"""
