"""The ``agenthorizon`` command: :func:`main`.

Each subcommand is a module of this package defining ``HELP`` (a one-line
string literal), ``add_arguments(parser)`` and ``run(args) -> int``. Only the
command being run is imported; the others are listed with ``HELP`` read from
their source.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.util
import os
import sys
from typing import Any, Iterator, Sequence


def command_names() -> list[str]:
    """Every subcommand's name (``score``, ``leaderboard``...), found without importing any of them."""
    folder = __path__[0]
    if os.path.isdir(folder):  # listed directly: pkgutil's listing imports `inspect` (tens of ms at start-up)
        names = [name[:-3] for name in os.listdir(folder) if name.endswith(".py")]
    else:  # a zipped install
        import pkgutil

        names = [info.name for info in pkgutil.iter_modules(__path__)]
    return [name.replace("_", "-") for name in sorted(names) if not name.startswith("_")]


def _module(name: str) -> Any:
    return importlib.import_module(f"{__name__}.{name.replace('-', '_')}")


def command_modules() -> dict[str, object]:
    """Subcommand name -> module, for every command module in this package."""
    return {name: _module(name) for name in command_names()}


def _help(name: str) -> str:
    """A command's one-line ``HELP``, parsed from its source; the module is imported only if it is not a literal."""
    import ast

    spec = importlib.util.find_spec(f"{__name__}.{name.replace('-', '_')}")
    source = (spec.loader.get_source(spec.name) if spec and spec.loader else None) or ""
    start = source.find("\nHELP = ")
    if start >= 0:
        end = source.find("\n\n", start + 1)
        try:
            return ast.literal_eval(source[start + len("\nHELP = "):end if end >= 0 else None].strip())
        except (ValueError, SyntaxError):
            pass
    return _module(name).HELP


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser; the docs' CLI reference is generated from it.

    With ``command`` only that subcommand is built (its module imported);
    with ``""`` every subcommand is listed with its help line and none is
    imported. Without ``command``, every subcommand is complete.
    """
    parser = argparse.ArgumentParser(
        prog="agenthorizon",
        description="Load, judge and score the AgentHorizon benchmark.",
    )
    from agenthorizon import __version__

    parser.add_argument("--version", action="version", version=f"agenthorizon {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in command_names():
        if command and name != command:
            continue  # a command is being run: the others are not needed, not even their help
        if command == "":
            help_text = _help(name)
            subparsers.add_parser(name, help=help_text, description=help_text)
            continue
        module = _module(name)
        sub = subparsers.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(sub)
        sub.set_defaults(_run=module.run)
    return parser


def _closest(word: str, choices: Sequence[str]) -> str:
    """`` (did you mean X?)`` for the choice nearest ``word``, or ``""`` when none is near."""
    import difflib

    match = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    return f" (did you mean {match[0]}?)" if match else ""


def _parse(parser: argparse.ArgumentParser, words: Sequence[str], command: str | None) -> argparse.Namespace:
    """``parse_args``, but a mistyped subcommand or flag is reported with the subcommand's usage and the nearest valid word."""
    if command is None:
        for word in words:
            if not word.startswith("-"):
                if word not in command_names():
                    parser.error(f"unknown command {word!r}{_closest(word, command_names())}; "
                                 f"expected one of {', '.join(command_names())}")
                break
        return parser.parse_args(words)
    args, unknown = parser.parse_known_args(words)
    if unknown:
        sub = _subparser(parser, command)
        flags = [option for action in sub._actions for option in action.option_strings if option.startswith("--")]
        first = next((word.split("=", 1)[0] for word in unknown if word.startswith("-")), unknown[0])
        sub.error(f"unrecognized arguments: {' '.join(unknown)}{_closest(first, flags) if first.startswith('-') else ''}")
    return args


def _subparser(parser: argparse.ArgumentParser, command: str) -> argparse.ArgumentParser:
    """The parser of subcommand ``command`` inside ``parser``."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action.choices[command]
    raise LookupError(command)  # pragma: no cover - build_parser always adds the subcommands


def _chosen_command(argv: Sequence[str]) -> str | None:
    """The subcommand ``argv`` names (its first word that is not an option), or ``None``: the one to build fully."""
    names = set(command_names())
    for word in argv:
        if not word.startswith("-"):
            return word if word in names else None
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Run a command; bad input, a missing extra or a closed pipe end it with one line, not a traceback.

    Exit status: the command's own; 2 for bad input (a ``ValueError``, a
    missing file, text that is not UTF-8, JSON nested too deeply) or a
    missing optional extra; 1 when the run could not go on (preflight, a dead
    server, a full disk); 128 + the signal on Ctrl-C or SIGTERM; 141
    (128 + SIGPIPE) when the reader of the output went away.
    """
    from agenthorizon.util.extras import MissingExtraError

    words = sys.argv[1:] if argv is None else list(argv)
    command = _chosen_command(words)
    # No command named (--help, --version, a typo): list them all, importing none.
    parser = build_parser(command or "")
    args = _parse(parser, words, command)
    from agenthorizon.judging.secrets import register_environment

    # Nothing a command writes (results, run.json, the report, messages) may hold a secret-looking value of this environment.
    register_environment(os.environ)
    try:
        with _printable_warnings():
            return int(args._run(args) or 0)
    except BrokenPipeError:
        return _closed_pipe()
    except (FileNotFoundError, ValueError, MissingExtraError) as error:
        # Every reader names its file; UnicodeDecodeError is a ValueError.
        from agenthorizon.cli._common import flag_wording

        return _error(args.command, _scrubbed(flag_wording(error)))
    except RecursionError:
        # Deep nesting no reader turned into a ValueError.
        return _error(args.command, "input nested too deeply to process (RecursionError); expected flatter JSON")
    except KeyboardInterrupt as stop:
        # Ctrl-C or SIGTERM (the runner has already stopped the agents and recorded why in run.json).
        # A further Ctrl-C would only interrupt the exit handlers and print their traceback.
        import signal  # here: the interpreter starts faster without it, and only an interrupt needs it

        signal.signal(signal.SIGINT, signal.SIG_IGN)
        name = getattr(stop, "signal_name", "SIGINT")
        resume = "; results written so far are kept, re-run the same command to resume" if args.command == "judge" else ""
        print(f"agenthorizon {args.command}: interrupted ({name}){resume}", file=sys.stderr)
        return 128 + int(getattr(signal, name, signal.SIGINT))
    except _run_errors() as error:
        # The run itself could not go on: preflight, a dead server (circuit breaker), a full disk.
        from agenthorizon.cli._common import EXIT_INCOMPLETE

        _error(args.command, _scrubbed(str(error)))
        return EXIT_INCOMPLETE


@contextlib.contextmanager
def _printable_warnings() -> Iterator[None]:
    """Warnings shown while a command runs go through :func:`~agenthorizon.util.terminal_text.printable`.

    A warning may quote a file name or a server's text: control characters are
    escaped (line breaks kept) and the text cut; the formatter is restored afterwards.
    """
    import warnings

    from agenthorizon.util.terminal_text import MESSAGE_LIMIT, printable

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
    # Python flushes stdout at exit and would report the broken pipe again: point it at /dev/null.
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
    (it may quote a server, an agent or a release) and at most :data:`~agenthorizon.util.terminal_text.MESSAGE_LIMIT` long."""
    from agenthorizon.judging.secrets import scrub
    from agenthorizon.util.terminal_text import MESSAGE_LIMIT, printable

    return printable(scrub(message).replace("\n", " "), limit=MESSAGE_LIMIT)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
