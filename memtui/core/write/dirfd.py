"""Confined directory-descriptor I/O for the one write path (:mod:`memtui.core.write.apply`).

A store is written only when no directory on its path is a symbolic link. A directory is opened
by walking from ``/`` one component at a time with ``O_NOFOLLOW | O_DIRECTORY``, so a link on
the way fails the open (ELOOP/ENOTDIR) instead of being followed, and the refusal names the link
and its real target. Every create, replace, unlink, mkdir and rmdir is then made relative to an
opened directory descriptor, never by path: a directory swapped for a link after the walk cannot
redirect a write, because nothing is looked up through the link.

One kind of link is followed: a system link (owned by root, in a directory owned by root that
only root can write, e.g. ``/bin -> usr/bin``, ``/home -> var/home`` on Fedora Atomic,
``/tmp -> private/tmp`` on macOS), and only when memtui itself does not run as root. A cloned
repository cannot create such a link; when memtui runs as root, every link is one it might
have checked out, so none is followed.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "NO_LINKS",
    "DirTree",
    "EditRefused",
    "open_dir",
    "relative_parts",
    "store_target",
]

NO_LINKS = "memtui writes only into stores whose path has no symlink"
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_MAX_SYSTEM_LINKS = 40


class EditRefused(Exception):
    """An edit memtui will not make; ``reason`` says why in words a user understands."""

    def __init__(self, reason: str, path: Path | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.path = path


def link_refusal(link: Path) -> EditRefused:
    """The refusal for a symlink on the way to a store, naming where the link really goes."""
    try:
        target = os.path.realpath(link)
    except OSError:  # swapped again while being resolved
        target = "a place that keeps changing"
    return EditRefused(f"{link} is a symlink to {target}: {NO_LINKS}", link)


def _lstat_at(name: str, dir_fd: int, path: Path) -> os.stat_result:
    """``lstat`` of an entry that just failed to open as a directory; it may be gone already
    (another process is swapping it): refused then, as it changes under memtui's hands."""
    try:
        return os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError as exc:
        raise EditRefused(
            f"{path} changed while memtui opened it (another process is moving it); "
            "nothing was written",
            path,
        ) from exc


def _file_link(path: Path) -> EditRefused:
    return EditRefused(f"{path} is a symbolic link; memtui does not write through links", path)


def relative_parts(rel: str) -> tuple[str, ...]:
    """The components of a relative, normalized path; ValueError for an absolute path, an
    empty one, or one with an empty, ``.`` or ``..`` component."""
    parts = tuple(rel.split("/"))
    if not rel or rel.startswith("/") or any(p in ("", ".", "..") for p in parts):
        raise ValueError(f"not a plain relative path: {rel!r}")
    return parts


@dataclass
class Opened:
    """The deepest existing directory on the way to a path, opened; ``missing``: the names
    below it that do not exist (yet); ``real``: its real path."""

    fd: int
    real: str
    missing: tuple[str, ...]


def _system_link(st: os.stat_result, parent_fd: int) -> bool:
    if os.geteuid() == 0 or st.st_uid != 0:
        return False
    parent = os.fstat(parent_fd)
    return parent.st_uid == 0 and not parent.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def open_dir(path: Path) -> Opened:
    """Open ``path`` (absolute, normalized) from ``/`` without following a link (but system
    links, see the module docstring); EditRefused when a component is a link or a file."""
    pending = [(name, True) for name in path.parts[1:]]
    nominal = Path("/")
    fd = os.open("/", _DIR_FLAGS)
    real = "/"
    hops = 0
    try:
        while pending:
            name, original = pending.pop(0)
            if name in ("", "."):
                continue
            if name == "..":
                child = os.open("..", _DIR_FLAGS, dir_fd=fd)
                os.close(fd)
                fd, real = child, os.path.dirname(real)
                continue
            try:
                child = os.open(name, _DIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if not original or not all(o for _n, o in pending):
                    raise EditRefused(f"{nominal} is a dangling link", nominal) from None
                return Opened(fd, real, (name, *(n for n, _o in pending)))
            except OSError as exc:
                if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
                    raise
                st = _lstat_at(name, fd, nominal / name)
                if not stat.S_ISLNK(st.st_mode):
                    raise EditRefused(
                        f"{nominal / name} is not a directory", nominal / name
                    ) from exc
                if not _system_link(st, fd) or hops >= _MAX_SYSTEM_LINKS:
                    raise link_refusal(nominal / name) from exc
                hops += 1
                target = os.readlink(name, dir_fd=fd)
                pending[:0] = [(p, False) for p in target.split("/") if p]
                if target.startswith("/"):
                    os.close(fd)
                    fd, real = os.open("/", _DIR_FLAGS), "/"
                if original:
                    nominal = nominal / name
                continue
            os.close(fd)
            fd, real = child, os.path.join(real, name)
            if original:
                nominal = nominal / name
    except BaseException:
        os.close(fd)
        raise
    return Opened(fd, real, ())


def store_target(root: Path) -> tuple[str, str | None]:
    """Where writes into ``root`` really land (its real path, or that of the deepest existing
    directory joined with the missing rest) and why memtui refuses to write there (None: it
    does not)."""
    path = Path(os.path.normpath(os.path.abspath(root)))
    try:
        opened = open_dir(path)
    except EditRefused as exc:
        try:
            return os.path.realpath(path), exc.reason
        except OSError:
            return str(path), exc.reason
    except OSError as exc:
        return str(path), f"cannot open {path}: {exc.strerror or exc}"
    os.close(opened.fd)
    return os.path.join(opened.real, *opened.missing), None


class DirTree:
    """The directories one operation touches, each opened once without following a link and
    kept open until :meth:`close`; keys are absolute, normalized paths. A directory below an
    opened one is opened relative to it."""

    def __init__(self) -> None:
        self._fds: dict[Path, int] = {}

    def __enter__(self) -> DirTree:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        for fd in self._fds.values():
            with contextlib.suppress(OSError):
                os.close(fd)
        self._fds.clear()

    # --- directories ----------------------------------------------------------------------

    def fd(self, directory: Path) -> int | None:
        """The open directory ``directory``; None when it (or a parent) does not exist."""
        if directory in self._fds:
            return self._fds[directory]
        anchor = directory
        while anchor not in self._fds and anchor.parent != anchor:
            anchor = anchor.parent
        if anchor not in self._fds:
            opened = open_dir(directory)
            found = directory
            for _ in opened.missing:
                found = found.parent
            self._fds[found] = opened.fd
            return None if opened.missing else opened.fd
        current = anchor
        for name in directory.relative_to(anchor).parts:
            child = current / name
            parent_fd = self._fds[current]
            try:
                fd = os.open(name, _DIR_FLAGS, dir_fd=parent_fd)
            except FileNotFoundError:
                return None
            except OSError as exc:
                if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
                    raise
                st = _lstat_at(name, parent_fd, child)
                if stat.S_ISLNK(st.st_mode):
                    raise link_refusal(child) from exc
                raise EditRefused(f"{child} is not a directory", child) from exc
            self._fds[child] = fd
            current = child
        return self._fds[directory]

    def parent_fd(self, path: Path) -> int:
        """The open directory that holds ``path``; EditRefused when it does not exist."""
        fd = self.fd(path.parent)
        if fd is None:
            raise EditRefused(f"{path.parent} does not exist", path)
        return fd

    def mkdir(self, directory: Path, mode: int) -> None:
        """Create ``directory`` (its parent exists) with exactly ``mode``; nothing when it
        exists already."""
        parent = self.parent_fd(directory)
        try:
            os.mkdir(directory.name, mode, dir_fd=parent)
        except FileExistsError:
            return
        fd = self.fd(directory)
        if fd is not None:
            os.fchmod(fd, mode)
        os.fsync(parent)

    def rmdir_if_empty(self, directory: Path) -> None:
        """Remove ``directory`` when it is an empty directory; nothing otherwise."""
        parent = self.fd(directory.parent)
        if parent is None:
            return
        for key in [k for k in self._fds if k == directory or k.is_relative_to(directory)]:
            with contextlib.suppress(OSError):
                os.close(self._fds.pop(key))
        with contextlib.suppress(OSError):
            os.rmdir(directory.name, dir_fd=parent)
            os.fsync(parent)

    # --- files ------------------------------------------------------------------------------

    def open_file(self, path: Path) -> int | None:
        """A read-only descriptor of the regular file ``path`` (None: absent); EditRefused for
        a symlink or anything that is not a regular file. Never blocks (a FIFO is refused)."""
        parent = self.fd(path.parent)
        if parent is None:
            return None
        try:
            st = os.stat(path.name, dir_fd=parent, follow_symlinks=False)
        except FileNotFoundError:
            return None
        except NotADirectoryError as exc:
            raise EditRefused(f"{path} cannot exist: a parent is not a directory", path) from exc
        if stat.S_ISLNK(st.st_mode):
            raise _file_link(path)
        if not stat.S_ISREG(st.st_mode):
            raise EditRefused(f"{path} is not a regular file", path)
        try:
            fd = os.open(path.name, _READ_FLAGS, dir_fd=parent)
        except FileNotFoundError:
            return None
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise _file_link(path) from exc
            raise
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise EditRefused(f"{path} is not a regular file", path)
        return fd

    def read(self, path: Path) -> tuple[bytes | None, os.stat_result | None]:
        """(bytes, stat) of the regular file ``path``, (None, None) when it is absent."""
        fd = self.open_file(path)
        if fd is None:
            return None, None
        try:
            return read_capped(fd, path), os.fstat(fd)
        finally:
            os.close(fd)

    def write_atomic(
        self, path: Path, data: bytes, mode: int, tmp_name: str, mtime_ns: int | None = None
    ) -> None:
        """A temp file beside ``path`` (mode set, written, fsynced, mtime set), renamed over
        ``path``, the directory fsynced; all relative to the directory's descriptor."""
        parent = self.parent_fd(path)
        self.write_temp(parent, tmp_name, data, mode, mtime_ns)
        self.swap(parent, tmp_name, path.name)

    @staticmethod
    def write_temp(parent: int, name: str, data: bytes, mode: int, mtime_ns: int | None) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(name, dir_fd=parent)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(name, flags, mode, dir_fd=parent)
        try:
            os.fchmod(fd, mode)
            write_all(fd, data)
            os.fsync(fd)
            if mtime_ns is not None:
                os.utime(fd, ns=(mtime_ns, mtime_ns))
        except BaseException:
            os.close(fd)
            with contextlib.suppress(OSError):  # a full disk leaves no half-written temp file
                os.unlink(name, dir_fd=parent)
            raise
        os.close(fd)

    @staticmethod
    def swap(parent: int, tmp_name: str, name: str) -> None:
        os.replace(tmp_name, name, src_dir_fd=parent, dst_dir_fd=parent)
        os.fsync(parent)

    def unlink(self, path: Path) -> None:
        """Remove the file ``path`` (nothing when it is absent) and fsync its directory."""
        parent = self.fd(path.parent)
        if parent is None:
            return
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path.name, dir_fd=parent)
            os.fsync(parent)


MAX_FILE_BYTES = 64 * 1024 * 1024
"""The largest file memtui changes: the journal keeps the old bytes of every file an operation
changes (so undo can restore them), and a memory file is a few KB. A larger file (a 2 GB sparse
file an agent left behind) is refused before a byte of it is read."""


def too_large(path: Path, size: int) -> EditRefused:
    mb = 1024 * 1024
    return EditRefused(
        f"{path} is {size / mb:.1f} MB: memtui keeps the old bytes of every file it changes so "
        f"that undo can restore them, and changes no file over {MAX_FILE_BYTES // mb} MB; "
        "nothing was written",
        path,
    )


def read_capped(fd: int, path: Path) -> bytes:
    """The whole regular file ``fd`` (``path`` names it in the refusal), refused without
    reading when it is over :data:`MAX_FILE_BYTES` (its apparent size: a sparse file counts)."""
    size = os.fstat(fd).st_size
    if size > MAX_FILE_BYTES:
        raise too_large(path, size)
    return read_all(fd)


def write_all(fd: int, data: bytes) -> None:
    """All of ``data`` to ``fd`` (``os.write`` may write less than it is given)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def read_all(fd: int) -> bytes:
    """Everything in the file ``fd`` from its start (``pread``: the offset stays)."""
    chunks: list[bytes] = []
    offset = 0
    while chunk := os.pread(fd, 1 << 20, offset):
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)


def absolute(path: Path) -> Path:
    return Path(os.path.normpath(os.path.abspath(path)))
