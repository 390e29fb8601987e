"""The ``agenthorizon`` command.

Each subcommand lives in its own module in this package and is discovered
here, so adding a command never touches another command's code. A command
module defines ``HELP`` (one line), ``add_arguments(parser)`` and
``run(args) -> int``.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import pkgutil
import signal
import sys
from typing import Any, Iterator, Sequence


def command_modules() -> dict[str, object]:
    """Subcommand name -> module, for every command module in this package."""
    modules = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        modules[info.name.replace("_", "-")] = importlib.import_module(f"{__name__}.{info.name}")
    return modules


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser; the docs' CLI reference is generated from it."""
    parser = argparse.ArgumentParser(
        prog="agenthorizon",
        description="Load, judge and score the AgentHorizon benchmark.",
    )
    from agenthorizon import __version__

    parser.add_argument("--version", action="version", version=f"agenthorizon {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, module in command_modules().items():
        sub = subparsers.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(sub)
        sub.set_defaults(_run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run a command; bad input, a missing extra or a closed pipe end it with one line, not a traceback.

    Exit status: the command's own, 2 for bad input (a ``ValueError``, a
    missing file, text that is not UTF-8, JSON nested too deeply) or a
    missing optional extra, and 141 (128 + SIGPIPE, as a shell reports it)
    when the reader of the output went away, as ``info --format json | head`` does.
    """
    from agenthorizon.extras import MissingExtraError

    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        with _printable_warnings():
            return int(args._run(args) or 0)
    except BrokenPipeError:
        return _closed_pipe()
    except (FileNotFoundError, ValueError, MissingExtraError) as error:
        # Bad input is reported as one clear line, not a traceback. Every
        # reader names its file; UnicodeDecodeError is a ValueError.
        from agenthorizon.cli._common import flag_wording

        return _error(args.command, _scrubbed(flag_wording(error)))
    except RecursionError:
        # Readers turn deep nesting into a ValueError naming the file; this
        # catches what no reader anticipated.
        return _error(args.command, "input nested too deeply to process (RecursionError); expected flatter JSON")
    except KeyboardInterrupt as stop:
        # Ctrl-C or SIGTERM (the runner turns SIGTERM into an interrupt and has
        # already stopped the agents and recorded why in run.json). The stop is
        # complete: a further Ctrl-C from here on would only interrupt the
        # interpreter's exit handlers and print their traceback.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        name = getattr(stop, "signal_name", "SIGINT")
        resume = "; results written so far are kept, re-run the same command to resume" if args.command == "judge" else ""
        print(f"agenthorizon {args.command}: interrupted ({name}){resume}", file=sys.stderr)
        return 128 + int(getattr(signal, name, signal.SIGINT))
    except _run_errors() as error:
        # The run itself could not go on: a judge that cannot work (preflight),
        # a dead server (circuit breaker), a full disk.
        from agenthorizon.cli._common import EXIT_INCOMPLETE

        _error(args.command, _scrubbed(str(error)))
        return EXIT_INCOMPLETE


@contextlib.contextmanager
def _printable_warnings() -> Iterator[None]:
    """Warnings shown while a command runs go through :func:`~agenthorizon.terminal_text.printable`.

    A warning may quote a release file name, a screenshot error or a server's
    text; Python prints warnings as they are, so a command escapes their
    control characters (line breaks kept) and cuts them, and restores the
    formatter afterwards.
    """
    import warnings

    from agenthorizon.terminal_text import MESSAGE_LIMIT, printable

    original = warnings.formatwarning

    def formatted(message: Any, category: Any, filename: str, lineno: int, line: str | None = None) -> str:
        return printable(original(message, category, filename, lineno, line), limit=MESSAGE_LIMIT, keep_newlines=True)

    warnings.formatwarning = formatted
    try:
        yield
    finally:
        warnings.formatwarning = original


def _error(command: str, message: str) -> int:
    try:
        print(f"agenthorizon {command}: error: {message}", file=sys.stderr)
    except BrokenPipeError:
        return _closed_pipe()
    from agenthorizon.cli._common import EXIT_USAGE

    return EXIT_USAGE


def _closed_pipe() -> int:
    """The reader of stdout closed it: stop quietly, as command-line tools do."""
    # Python flushes stdout at exit and would report the broken pipe again;
    # point stdout at /dev/null so that flush has nowhere to fail.
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # stdout is not a real file (captured in tests)
        pass
    return 128 + 13  # SIGPIPE


def _run_errors() -> tuple[type[BaseException], ...]:
    """Errors that stop a command after its input was accepted (imported only when one happened)."""
    from agenthorizon.judging.judges.base import JudgeError
    from agenthorizon.judging.runs.loop import RunAborted

    return (JudgeError, RunAborted, OSError)


def _scrubbed(message: str) -> str:
    """An error message as printed: without any registered secret, on one line, control characters escaped
    (it may quote a server, an agent or a release) and at most :data:`~agenthorizon.terminal_text.MESSAGE_LIMIT` long."""
    from agenthorizon.judging.secrets import scrub
    from agenthorizon.terminal_text import MESSAGE_LIMIT, printable

    return printable(scrub(message).replace("\n", " "), limit=MESSAGE_LIMIT)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
