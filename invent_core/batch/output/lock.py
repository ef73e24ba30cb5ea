"""One run at a time per output: an OS lock the kernel releases however the process ends.

:class:`OutputLock` holds ``flock`` on ``OUTPUT.lock``, so ``kill -9`` leaves
nothing to clean up; :func:`output_folder` does the same for a command's
output folder (``evaluate``, ``tsu``) after its checks. A command takes its
lock before any work (before a model loads) and the library function it calls
takes it again: the lock is re-entrant within one thread, so the inner
``with`` is a no-op there, while any other process or thread is refused.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from ...csv_safe import atomic_file
from ...errors import OutputBusyError
from .paths import check_output_folder, check_output_paths, lock_path

__all__ = [
    "OutputBusyError",
    "OutputLock",
    "check_output_file",
    "input_files",
    "output_file",
    "output_folder",
]


#: Locks this process holds: (lock file, thread id) -> how many ``with`` deep.
_held: dict[tuple[str, int], int] = {}


class OutputLock:
    """Exclusive lock of one output for one run: ``flock`` on ``OUTPUT.lock``.

    The kernel drops an ``flock`` when its process ends (``kill -9``
    included), so a stale lock cannot exist; the lock file is removed on a
    clean exit. A second run is refused at once with :class:`OutputBusyError`.
    """

    def __init__(self, path: Path, output: Path) -> None:
        self.path, self.output = Path(path), Path(output)
        self._fd: int | None = None
        self._key = (os.path.realpath(self.path), threading.get_ident())
        self._nested = False

    def __enter__(self) -> OutputLock:
        """Take the lock, or raise OutputBusyError naming the process that holds it."""
        if _held.get(self._key):  # this thread holds it already (a command, then its library call)
            _held[self._key] += 1
            self._nested = True
            return self
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows: no flock, no lock
            return self
        while self._fd is None:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.read(fd, 64).decode("ascii", "replace").strip()
                os.close(fd)
                raise OutputBusyError(
                    f"another run (process {holder or '?'}) is writing this output; wait for it "
                    "to finish, or stop it (its rows are kept and the next run resumes)",
                    file=self.output,
                ) from None
            if _still_named(fd, self.path):  # not unlinked by the previous holder meanwhile
                self._fd = fd
            else:
                os.close(fd)
        os.ftruncate(self._fd, 0)
        os.write(self._fd, f"{os.getpid()}\n".encode())
        _held[self._key] = 1
        return self

    def __exit__(self, *exc: object) -> None:
        """Remove the lock file and release the lock (the outermost ``with`` only)."""
        if self._nested:
            _held[self._key] -= 1
            self._nested = False
            return
        _held.pop(self._key, None)
        if self._fd is not None:
            with contextlib.suppress(OSError):
                self.path.unlink()  # while still holding it: a waiter re-checks the name
            os.close(self._fd)
            self._fd = None


def _still_named(fd: int, path: Path) -> bool:
    try:
        return os.fstat(fd).st_ino == os.stat(path).st_ino
    except FileNotFoundError:
        return False


@contextlib.contextmanager
def output_folder(
    folder: str | os.PathLike, names: Iterable[str], inputs: Iterable[str | os.PathLike] = ()
) -> Iterator[Path]:
    """Check, create and lock a command's output folder (``evaluate``, ``tsu``, ``run --save``).

    Before any work: a path that is a file, a folder that cannot be created or
    written, or an input that one of ``names`` inside it would overwrite (the
    path, a hard or a symbolic link) is refused with :class:`BatchInputError`
    (exit 2). Then one run at a time holds ``FOLDER/.invent.lock`` (resolved
    path, as :class:`OutputLock`); a second is refused with
    :class:`OutputBusyError` (exit 4).
    """
    check_output_folder(folder, names, inputs)
    real = Path(os.path.realpath(folder))
    with OutputLock(real / ".invent.lock", Path(folder)):
        yield Path(folder)


def input_files(inputs: Iterable[str | os.PathLike]) -> list[Path]:
    """The files a command reads: each input file, and every file under an input folder.

    An output is compared with each of them (the same inode, through any link),
    so ``-o`` naming a file inside an evaluation folder that the command reads
    (its ``scores.csv``, ``config.json``, ``relabels.jsonl``, a saved run) is refused.
    """
    out: list[Path] = []
    for p in map(Path, inputs):
        if p.is_dir():
            out += [Path(root) / f for root, _, files in os.walk(p) for f in files]
        elif p.exists():
            out.append(p)
    return out


def check_output_file(path: str | os.PathLike, inputs: Iterable[str | os.PathLike] = ()) -> Path:
    """Refuse an output file that is a folder, cannot be written, or is one of the files read.

    Run before any work (options first, then the inputs); :func:`output_file` checks again
    when it writes.
    """
    out = Path(path)
    check_output_paths([out], input_files(inputs))
    return out


@contextlib.contextmanager
def output_file(
    path: str | os.PathLike, inputs: Iterable[str | os.PathLike] = (), mode: str = "w"
) -> Iterator[IO[Any]]:
    """Write one output file with the promises every writer keeps.

    Refused when it is one of the files read (:func:`check_output_file`); one
    writer at a time (``OUTPUT.lock``, :class:`OutputLock`: a second is refused
    with :class:`OutputBusyError`); written to a temporary file, fsynced and
    renamed (:func:`~invent_core.csv_safe.atomic_file`), so a kill or a full
    disk leaves the old file whole and no partial one.
    """
    out = check_output_file(path, inputs)
    with OutputLock(lock_path(out), out), atomic_file(out, mode) as f:
        yield f
