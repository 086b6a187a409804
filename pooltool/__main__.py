"""``python -m pooltool`` runs the command line (as the ``pooltool`` console script)."""

from pooltool.cli.exit import main

if __name__ == "__main__":
    main()
