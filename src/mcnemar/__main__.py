"""``python -m mcnemar`` runs the command line."""

from mcnemar.cli import main

if __name__ == "__main__":
    main(prog_name="mcnemar")
