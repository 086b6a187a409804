"""``python -m pooltool`` runs the command line."""

from pooltool.cli import cli

if __name__ == "__main__":
    cli(prog_name="pooltool")
