"""``python -m storage``: list, show, export and import stored debates.

What it does::

    python -m storage [--db PATH_OR_URL] list [--status S] [--protocol P] [--variant V] [--condition C] [--text T]
                                             [--since YYYY-MM-DD] [--experiment E] [--limit N]
    python -m storage [--db ...] show ID_OR_PREFIX [--plans]
    python -m storage [--db ...] export ID_OR_PREFIX [--out FILE.json] [--csv FOLDER]
    python -m storage [--db ...] import FILE.json

``show`` replays the stored events through the same terminal renderer as a
live run. It also provides ``record_sink``, which ``python -m debate_core run
--db PATH`` loads through the ``interruptible_debate.sinks`` entry point, so
the engine's CLI can record without ``debate_core`` importing ``storage``.

Bad input is one line on standard error and exit code 2, never a traceback:
an argument that is not UTF-8 text, a ``--since`` that is no date (or one at
the calendar's edge that no UTC time can hold), a ``--text`` over
``MAX_TEXT`` characters, a debate id over 64, an ``--out`` that is a folder or
a ``--csv`` that is a file. A debate that is not found, a transcript refused
and a file that cannot be written are one line on standard output and exit
code 1.

What it does not do: run debates.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path

from rich.table import Table
from rich.text import Text

from console.terminal import TerminalRenderer, make_console
from debate_core.config import DEFAULT_PROTOCOL, Condition
from debate_core.events import Event
from debate_core.protocols.registry import uses_budget
from debate_core.text import clean
from storage.store import STATUSES, Store
from storage.transfer import TranscriptError, safe_file_name


def record_sink(target: str) -> object:
    """An event-stream wrapper that records into ``target`` (the engine CLI's ``--db``)."""
    store = Store(target)

    def sink(events: Iterable[Event]) -> Iterator[Event]:
        return store.record(events)

    return sink


MAX_LIMIT = 1_000_000
MAX_TEXT = 1_000
MAX_ID = 64


def since_time(text: str) -> datetime:
    """``YYYY-MM-DD`` or an ISO time; without an offset it is UTC, with one the offset is kept."""
    try:
        value = datetime.fromisoformat(text.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text[:80]!r} is not a date (YYYY-MM-DD) or an ISO time") from None
    value = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
    try:
        value.astimezone(UTC)  # the store compares in UTC: 0001-01-01T00:00+01:00 has no UTC time
    except OverflowError:
        raise argparse.ArgumentTypeError(f"{text[:80]!r} is outside the times a UTC clock can give") from None
    return value


def words(text: str) -> str:
    """Words to find in the questions: at most ``MAX_TEXT`` characters."""
    if len(text) > MAX_TEXT:
        raise argparse.ArgumentTypeError(f"at most {MAX_TEXT:,} characters, not {len(text):,}")
    return clean(text)


def debate_prefix(text: str) -> str:
    """A debate id or the start of one: at most ``MAX_ID`` characters (no id is longer)."""
    if len(text) > MAX_ID:
        raise argparse.ArgumentTypeError(f"a debate id has at most {MAX_ID} characters, not {len(text):,}")
    return text


def limit(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 1 <= value <= MAX_LIMIT:
        raise argparse.ArgumentTypeError(f"the limit must be between 1 and {MAX_LIMIT:,}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m storage", description="Stored debates.")
    parser.add_argument("--db", help="SQLite file or SQLAlchemy URL (default: the data directory's file)")
    commands = parser.add_subparsers(dest="command", required=True)
    listing = commands.add_parser("list", help="list debates, newest first")
    listing.add_argument("--status", choices=STATUSES)
    listing.add_argument("--protocol", help="a protocol name (python -m debate_core protocols lists them)")
    listing.add_argument("--variant", help="a protocol variant")
    listing.add_argument("--condition", choices=[c.value for c in Condition], help=f"{DEFAULT_PROTOCOL}'s variant")
    listing.add_argument("--text", type=words, help="words in the question")
    listing.add_argument("--since", type=since_time, help="YYYY-MM-DD, or an ISO time with an offset")
    listing.add_argument("--experiment")
    listing.add_argument("--limit", type=limit, default=50)
    show = commands.add_parser("show", help="replay a debate in the terminal")
    show.add_argument("debate", type=debate_prefix)
    show.add_argument("--plans", action="store_true", help="also show every turn's plans")
    export = commands.add_parser("export", help="write a debate as JSON (and/or CSV tables)")
    export.add_argument("debate", type=debate_prefix)
    export.add_argument("--out", help="JSON file (default: DEBATE_ID.json)")
    export.add_argument(
        "--csv",
        metavar="FOLDER",
        help="also write the CSV tables here: plans, disclosures, utterances, and a class's seats and polls",
    )
    imported = commands.add_parser("import", help="add a debate from a JSON transcript")
    imported.add_argument("file")
    return parser


def _not_text(argv: Sequence[str]) -> str | None:
    """The first argument that is not UTF-8 text (the shell passed bytes Python could not decode), if any."""
    for arg in argv:
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:
            return ascii(arg)[:80]
    return None


def _export_targets(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuse an ``--out`` that is a folder and a ``--csv`` that is a file, before anything is written."""
    if args.out is not None and Path(args.out).is_dir():
        parser.error(f"--out {args.out} is a folder; give the JSON file's name")
    if args.csv is not None and Path(args.csv).exists() and not Path(args.csv).is_dir():
        parser.error(f"--csv {args.csv} is a file; give a folder for the CSV tables")


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    given = list(sys.argv[1:] if argv is None else argv)
    wrong = _not_text(given)
    if wrong is not None:
        parser.error(f"the argument {wrong} is not UTF-8 text")
    args = parser.parse_args(given)
    if args.command == "export":
        _export_targets(parser, args)
    console = make_console()
    store = Store(args.db)
    try:
        if args.command == "list":
            rows = store.list_debates(
                status=args.status,
                protocol=args.protocol,
                variant=args.variant,
                condition=args.condition,
                text=args.text,
                since=args.since,
                experiment_id=args.experiment,
                limit=args.limit,
            )
            table = Table(show_edge=False)
            for column in ("id", "created (UTC)", "status", "protocol", "answer", "tokens", "question"):
                table.add_column(column, overflow="ellipsis", no_wrap=column != "question")
            for row in rows:
                outcome = (row.final_answer or "-") + {True: " ✓", False: " ✗", None: ""}[row.correct]
                table.add_row(
                    row.id[:12],
                    row.created_at.strftime("%Y-%m-%d %H:%M"),
                    row.status,
                    f"{row.protocol}/{row.variant}" if row.variant else row.protocol,
                    outcome,
                    f"{row.public_tokens}/{row.token_budget}" if uses_budget(row.protocol) else str(row.public_tokens),
                    Text(row.question[:80]),
                )
            console.print(table)
            console.print(Text(f"{len(rows)} debate(s) in {store.url}", style="dim"))
        elif args.command == "show":
            renderer = TerminalRenderer(console, show_plans=args.plans)
            for event in store.events(store.find(args.debate)):
                renderer.show(event)
        elif args.command == "export":
            debate_id = store.find(args.debate)
            path = store.export_json(debate_id, args.out or safe_file_name(debate_id, ".json"))
            console.print(f"wrote {path}")
            if args.csv:
                for written in store.export_csv([debate_id], args.csv):
                    console.print(f"wrote {written}")
        else:
            imported = store.import_transcript(args.file)
            with_class = " and its classroom record" if imported.classroom else ""
            console.print(f"imported debate {imported.debate_id}{with_class}")
            if imported.classroom_problem is not None:  # the debate is in; its malformed classroom part is not
                why = clean(imported.classroom_problem)
                console.print(Text(f"warning: its classroom record was left out: {why}", style="yellow"))
    except (KeyError, TranscriptError) as error:
        message = error.args[0] if error.args else str(error)
        console.print(Text(f"error: {clean(str(message))}", style="red"))
        return 1
    except OSError as error:  # a folder that cannot be made, a file that cannot be written
        where = clean(str(error.filename)) if error.filename is not None else "the file"
        console.print(Text(f"error: cannot write {where}: {error.strerror or error}", style="red"))
        return 1
    finally:
        store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
