"""A read-only list whose items are built on first access.

A runaway MEMORY.md has 50,000 entries; ``memtui index`` prints 25 of each list and the counts.
Building every entry object costs more than the regex pass that finds them, so a load report
keeps the pass's matches and builds an entry when it is looked at (once: the same object after).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from memtui.core.cache import gc_paused

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (slow) at run time
if TYPE_CHECKING:
    from typing import TypeVar, overload

    T = TypeVar("T")
else:
    T = "T"  # Sequence["T"] at run time: the base is Sequence


class LazyList(Sequence[T]):
    """``[build(i) for i in range(count)]``, each item built when first read.

    Equal to any sequence with the same items (a list included), as the list it stands for."""

    __slots__ = ("_build", "_complete", "_items")
    __hash__ = None  # type: ignore[assignment]  # mutable contents, like a list

    def __init__(self, count: int, build: Callable[[int], T]) -> None:
        self._items: list[T | None] = [None] * count
        self._build = build
        self._complete = count == 0  # every item built: iterating is a list's

    def __len__(self) -> int:
        return len(self._items)

    def __reduce__(self) -> tuple[type[list[T]], tuple[list[T]]]:
        """Pickled as the list it stands for, every item built (the TUI's first scan comes
        from a child process: :mod:`memtui.core.scan.forked`)."""
        return list, (list(self),)

    if TYPE_CHECKING:

        @overload
        def __getitem__(self, index: int) -> T: ...

        @overload
        def __getitem__(self, index: slice) -> list[T]: ...

    def __getitem__(self, index: int | slice) -> T | list[T]:
        if isinstance(index, slice):
            return [self._get(i) for i in range(*index.indices(len(self._items)))]
        item = self._items[index]  # IndexError past the end, like a list
        if item is None:
            if index < 0:
                index += len(self._items)
            item = self._items[index] = self._build(index)
        return item

    def _get(self, index: int) -> T:
        item = self._items[index]
        if item is None:
            item = self._items[index] = self._build(index)
        return item

    def build_all(self) -> None:
        """Build every item not built yet (in one go, without garbage collection)."""
        iter(self)

    def __iter__(self) -> Iterator[T]:
        """Every item built (those not yet), then a plain list iterator. No garbage collection
        runs while they are built: each would walk every object of the process again (the
        TUI's too), for objects that hold no cycle."""
        items, build = self._items, self._build
        if not self._complete:
            with gc_paused():
                for i in [i for i, item in enumerate(items) if item is None]:
                    items[i] = build(i)
            self._complete = True
        return iter(items)  # type: ignore[arg-type]  # no None left

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    def __repr__(self) -> str:
        return repr(list(self))
