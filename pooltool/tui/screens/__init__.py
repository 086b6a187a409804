"""The judging UI's screens: topic picker, judging screen, and modal dialogs."""
