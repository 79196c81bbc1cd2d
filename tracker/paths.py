"""Where the event store lives when no ``--db`` is given: the user's data folder.

``$XDG_DATA_HOME/ddz-table/ddz-table.db``, else ``~/.local/share/ddz-table/ddz-table.db``; never
the working directory, so a store is not left in whatever folder the command ran from. The Pi
box names its own folder in its settings file (``[data] dir``, see ``box.config``).
Deck profiles (``ddz-table enroll``) live beside it, in ``decks/``.
"""

from __future__ import annotations

import os
from pathlib import Path

APP_NAME = "ddz-table"
DB_NAME = "ddz-table.db"
DECKS_NAME = "decks"


def data_dir() -> Path:
    """The program's data folder; an unset, empty or relative ``XDG_DATA_HOME`` is ignored, as the
    XDG base-directory spec says."""
    base = os.environ.get("XDG_DATA_HOME", "")
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".local" / "share"
    return root / APP_NAME


def default_db(create: bool = True) -> Path:
    """The default event store's path; ``create`` makes its folder (not the store itself) when it
    can: where it cannot, opening the store says so with the path."""
    path = data_dir() / DB_NAME
    if create:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError:
            pass
    return path


def decks_dir() -> Path:
    """Where ``ddz-table enroll`` keeps deck profiles by name (``NAME.npz``) and ``--deck NAME``
    finds them: ``decks/`` in :func:`data_dir`. Not created here: saving a profile makes it."""
    return data_dir() / DECKS_NAME
