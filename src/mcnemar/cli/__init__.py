"""The ``mcnemar`` command line.

Each sub-command lives in its own module and is imported only when it is invoked, so that
``mcnemar test --b 17 --c 3`` starts without loading pandas, scipy.stats or the web stack.

=========  ===========================  ==============================================
command    module                       what it does
=========  ===========================  ==============================================
test       :mod:`mcnemar.cli.test`      the full report for counts typed in
compare    :mod:`mcnemar.cli.compare`   align two runs' result files and report
power      :mod:`mcnemar.cli.power`     power, sample size, minimum detectable effect
pairwise   :mod:`mcnemar.cli.pairwise`  all pairs of many runs, adjusted p-values
monitor    :mod:`mcnemar.cli.monitor`   where an eval could have stopped (anytime-valid)
serve      :mod:`mcnemar.cli.serve`     the local web calculator
=========  ===========================  ==============================================

Exit codes are listed in :class:`mcnemar.cli._common.ExitCode`.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

import click

__all__ = ["main"]

# name -> (module, attribute, one-line help); the module is imported on first use.
_COMMANDS: dict[str, tuple[str, str, str]] = {
    "test": ("mcnemar.cli.test", "test", "Run every McNemar test on counts and print the report."),
    "compare": ("mcnemar.cli.compare", "compare", "Align two runs' per-item results and report."),
    "power": ("mcnemar.cli.power", "power", "Power, sample size and minimum detectable effect."),
    "pairwise": ("mcnemar.cli.pairwise", "pairwise", "Compare many runs on the same items."),
    "monitor": ("mcnemar.cli.monitor", "monitor",
                "Replay two runs item by item with the anytime-valid sequential test."),
    "serve": ("mcnemar.cli.serve", "serve", "Start the local web calculator."),
}


class _LazyGroup(click.Group):
    def main(self, *args: Any, **kwargs: Any) -> Any:
        # Usage errors (unknown option, bad choice) become one line on stderr and exit code 2,
        # like every other kind of bad input.
        kwargs["standalone_mode"] = False
        try:
            return super().main(*args, **kwargs)
        except click.UsageError as exc:
            hint = ""
            if exc.ctx is not None:
                hint = f" (see '{exc.ctx.command_path} --help')"
            click.echo(f"mcnemar: error: {exc.format_message()}{hint}", err=True)
            sys.exit(2)
        except click.exceptions.Abort:
            click.echo("mcnemar: aborted", err=True)
            sys.exit(1)
        except click.exceptions.Exit as exc:
            sys.exit(exc.exit_code)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [name for name, (mod, _, _) in _COMMANDS.items() if _module_exists(mod)]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = _COMMANDS.get(cmd_name)
        if entry is None or not _module_exists(entry[0]):
            return None
        module = importlib.import_module(entry[0])
        command: click.Command = getattr(module, entry[1])
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # Listing help must not import every command module (slow start-up).
        rows = [(name, _COMMANDS[name][2]) for name in self.list_commands(ctx)]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


def _module_exists(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="mcnemar")
def main(**_: Any) -> None:
    """Paired significance testing for two classifiers or two eval runs on the same items.

    \b
    Examples:
      mcnemar test --a 157 --b 17 --c 3 --d 23
      mcnemar test --only-a-wrong 12 --only-b-wrong 3
      mcnemar compare run_a.jsonl run_b.jsonl --format markdown
    """
