"""The TUI's first scan in a child process, started before the app imports Textual.

On a machine with a core to spare, the scan (``scan_progressively``, then the whole-file
``[[links]]`` check the TUI runs after it) reads the stores while the app imports Textual,
reads its stylesheet and composes its screen; the results come back pickled, through one
pickler whose memo lasts the whole scan, so that an object the child sent twice (a store in a
partial and in the complete result) is one object in the parent too: the parent gets the very
object graph an in-process scan gives (``tests/core/scan/test_forked.py`` compares them).

The one change an in-process scan makes to an object it has already handed out is a memory's
``secrets`` (its whole text is scanned after its header was shown: ``Deferred``); the
complete result comes with the memories holding secrets and their marks, and the parent sets
them on its own objects before it hands the result on.

What the child reads is as hostile as ever: it runs the same code under the same bounds. The
transfer executes nothing from a store: the child is a fork of this process, the stream goes
through a pipe and an anonymous memory file only the two processes hold, the objects pickled
are memtui's own dataclasses, enums, paths and plain values a memtui parser built from file
bytes (a file's text is always a length-prefixed string in the stream, never an opcode), and
the parent's unpickler refuses any class but those (:class:`ResultUnpickler`). Anything that
goes wrong on the way (no ``fork``, another thread running, the child failing, a class
refused) ends the child and leaves the scan to the caller, in its own process.
"""

from __future__ import annotations

import contextlib
import io
import os
import pickle
import threading
from collections.abc import Generator
from dataclasses import is_dataclass
from enum import Enum

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (slow) at run time
if TYPE_CHECKING:
    from typing import Any

    from memtui.core.contents import Memory, ScanResult, SecretMark
    from memtui.core.stores.locations import Context

HEADER_BYTES = 8
"""Each message's length, announced on the pipe (the message itself is in the memory file)."""

PLAIN_CLASSES = frozenset({
    ("builtins", "list"),  # a LazyList pickles as the list it stands for
    ("pathlib", "PosixPath"),
    ("pathlib", "WindowsPath"),
    ("datetime", "datetime"),
    ("datetime", "date"),
    ("datetime", "timedelta"),
    ("datetime", "timezone"),
})
"""The classes other than memtui's own dataclasses and enums a scan's result may hold."""


class ForkedScanFailed(Exception):
    """The child scan ended without its whole result: the caller scans in its own process."""


class ResultUnpickler(pickle.Unpickler):
    """An unpickler that builds memtui's dataclasses and enums (from ``memtui.core``) and the
    plain classes of :data:`PLAIN_CLASSES`, nothing else."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in PLAIN_CLASSES:
            return super().find_class(module, name)
        if module.startswith("memtui.core.") and "." not in name:
            found = super().find_class(module, name)
            if isinstance(found, type) and (is_dataclass(found) or issubclass(found, Enum)):
                return found
        raise pickle.UnpicklingError(f"a scan result holds no {module}.{name}")


class _Message:
    """The unpickler's file: whichever message is being read (the unpickler's memo outlives
    each message)."""

    def __init__(self) -> None:
        self.data = io.BytesIO()

    def read(self, size: int = -1) -> bytes:
        return self.data.read(size)

    def readinto(self, buffer: Any) -> int:
        return self.data.readinto(buffer)

    def readline(self, size: int | None = -1) -> bytes:
        return self.data.readline(size)


def secrets_found(result: ScanResult) -> list[tuple[Memory, list[SecretMark]]]:
    """Each memory of ``result`` holding secrets, with its marks (what the parent sets on the
    memories it was sent before their whole texts were read)."""
    return [(memory, memory.secrets) for store in result.stores for memory in store.memories
            if memory.secrets]


class ForkedScan:
    """A scan of ``ctx`` running in a child process: :meth:`start` forks it, :meth:`messages`
    reads what it sends, :meth:`close` ends it (a running child is killed)."""

    def __init__(self, pid: int, notices: int, data: int) -> None:
        self.pid = pid
        self._notices = notices  # the pipe's read end: each message's length
        self._data = data  # the memory file the messages are in, read with pread
        self._offset = 0
        self._lock = threading.Lock()
        self._reaped = False
        self._taken = False

    @classmethod
    def start(cls, ctx: Context) -> ForkedScan | None:
        """Fork the scan of ``ctx``; None where it cannot be forked safely (no ``os.fork``,
        another thread running: a fork copies no other thread, and what it held stays held)."""
        if not hasattr(os, "fork") or threading.active_count() != 1:
            return None
        try:
            data = _memory_file()
            notices, tell = os.pipe()
        except OSError:
            return None
        import sys

        for stream in (sys.stdout, sys.stderr):  # nothing buffered is written twice
            with contextlib.suppress(OSError, ValueError, AttributeError):
                stream.flush()
        try:
            pid = os.fork()
        except OSError:
            for fd in (data, notices, tell):
                os.close(fd)
            return None
        if pid == 0:  # the child: scan, send, and end without running the parent's exit code
            code = 0
            try:
                os.close(notices)
                _run_child(ctx, data, tell)
            except BaseException:  # nothing may escape into the parent's code
                code = 1
            finally:
                os._exit(code)
        os.close(tell)
        return cls(pid, notices, data)

    def messages(self) -> Generator[tuple[Any, ...], None, None]:
        """What the child sends, in order: ``("progress", stage)``, ``("result", result)``
        for each partial result, ``("result", result)`` for the complete one (its memories'
        secrets already set), ``("links", updates)`` (``check_store_links``'s), the last.
        Raises :class:`ForkedScanFailed` when the child ends before the last. Only one
        reader: the first call takes the messages."""
        if self._taken:
            raise ForkedScanFailed("the forked scan was already read")
        self._taken = True
        message = _Message()
        unpickler = ResultUnpickler(message)
        try:
            while True:
                size = self._next_size()
                message.data = io.BytesIO(self._read(size))
                try:
                    item = unpickler.load()
                except Exception as error:  # any failure: scan here instead
                    raise ForkedScanFailed(f"unreadable message: {error}") from error
                if not isinstance(item, tuple) or not item:
                    raise ForkedScanFailed("a message that is no tuple")
                if item[0] == "failed":
                    raise ForkedScanFailed(str(item[1]))
                if item[0] == "complete":
                    _kind, found, result = item
                    for memory, marks in found:
                        memory.secrets = marks
                    yield ("result", result)
                    continue
                yield item
                if item[0] == "links":
                    return
        finally:
            os.close(self._notices)
            os.close(self._data)
            self.close()

    def pending(self) -> bool:
        """Whether the child has sent more (or ended): reading on does not wait."""
        import select

        try:
            ready, _write, _error = select.select([self._notices], [], [], 0)
        except (OSError, ValueError):  # closed: reading on fails at once
            return True
        return bool(ready)

    def _next_size(self) -> int:
        header = b""
        while len(header) < HEADER_BYTES:
            chunk = os.read(self._notices, HEADER_BYTES - len(header))
            if not chunk:
                raise ForkedScanFailed("the scan's process ended before its result")
            header += chunk
        return int.from_bytes(header, "little")

    def _read(self, size: int) -> bytes:
        parts: list[bytes] = []
        left = size
        while left:
            part = os.pread(self._data, left, self._offset)
            if not part:
                raise ForkedScanFailed("a message shorter than announced")
            parts.append(part)
            self._offset += len(part)
            left -= len(part)
        return b"".join(parts)

    def close(self) -> None:
        """End the child (killed when still running) and reap it; idempotent, any thread."""
        import signal

        with self._lock:
            if self._reaped:
                return
            self._reaped = True
            try:
                pid, _status = os.waitpid(self.pid, os.WNOHANG)
                if pid == 0:
                    os.kill(self.pid, signal.SIGKILL)
                    os.waitpid(self.pid, 0)
            except (ChildProcessError, ProcessLookupError):
                pass


def _memory_file() -> int:
    """An anonymous file only this process (and its fork) holds."""
    if hasattr(os, "memfd_create"):
        return os.memfd_create("memtui-scan", os.MFD_CLOEXEC)
    import tempfile

    with tempfile.TemporaryFile() as handle:  # unlinked: nobody else can open it
        return os.dup(handle.fileno())


def _run_child(ctx: Context, data: int, tell: int) -> None:
    """In the child: the TUI's first scan (as ``MainScreen.run_scan`` makes it), each result
    and progress sent as it comes."""
    import gc

    gc.disable()  # the child ends with os._exit: nothing needs collecting
    # A session of its own: where the scheduler shares the CPU out by session (Linux's
    # autogroup, on by default on desktops), a child in the app's session would only split
    # the app's share; the parent ends it (``close``), the terminal does not.
    with contextlib.suppress(OSError):
        os.setsid()
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):  # nothing reaches the terminal the app draws on
        os.dup2(null, fd)
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
    end = 0  # where the next message goes in the memory file (after the last one announced)

    def put(message: bytes | memoryview) -> None:
        nonlocal end
        view = memoryview(message)
        written = 0
        while written < len(view):
            written += os.pwrite(data, view[written:], end + written)
        end += written
        os.write(tell, written.to_bytes(HEADER_BYTES, "little"))

    def send(item: tuple[Any, ...]) -> None:
        buffer.seek(0)
        buffer.truncate()
        pickler.dump(item)
        with buffer.getbuffer() as message:
            put(message)

    try:
        from memtui.core.scan.scanner import cache_for, scan_progressively
        from memtui.core.scan.store_index import check_store_links

        cache = cache_for(ctx)
        last = None
        for result in scan_progressively(ctx, lambda stage: send(("progress", stage)), cache):
            if result.complete:
                send(("complete", secrets_found(result), result))
            else:
                send(("result", result))
            last = result
        if last is None:
            raise ForkedScanFailed("the scan gave no result")
        updates = check_store_links(last.stores, cache)
        cache.save()
        send(("links", updates))
    except Exception as error:  # said to the parent, which scans itself
        # a stream of its own: the pickler's memo may hold what a failed message never sent
        put(pickle.dumps(("failed", f"{type(error).__name__}: {error}")))
