"""LazyList: a read-only list whose items are built on first access, once."""

from __future__ import annotations

import pytest

from memtui.core.lazylist import LazyList


def counted(count: int) -> tuple[LazyList[list[int]], list[int]]:
    """A LazyList of ``[i]`` items, and the indexes built so far (in order)."""
    built: list[int] = []

    def build(i: int) -> list[int]:
        built.append(i)
        return [i]

    return LazyList(count, build), built


def test_items_are_built_when_read_and_once() -> None:
    items, built = counted(5)
    assert len(items) == 5 and built == []
    first = items[1]
    assert items[1] is first and items[-4] is first and built == [1]
    assert items[-1] == [4] and built == [1, 4]
    assert items[1:3] == [[1], [2]] and items[1:3][0] is first and built == [1, 4, 2]


def test_iterating_builds_only_the_missing_items() -> None:
    items, built = counted(4)
    second = items[2]
    assert list(items) == [[0], [1], [2], [3]] and list(items)[2] is second
    assert built == [2, 0, 1, 3]


def test_it_equals_the_list_it_stands_for() -> None:
    items, _ = counted(3)
    expected = [[0], [1], [2]]
    assert items == expected and expected.__eq__(items) is NotImplemented  # list defers to it
    assert items != [[0], [1]] and items != [[0], [1], [3]]
    assert items != "abc" and repr(items) == "[[0], [1], [2]]"


@pytest.mark.parametrize("index", [3, -4])
def test_past_the_end_is_an_index_error(index: int) -> None:
    items, built = counted(3)
    with pytest.raises(IndexError):
        items[index]
    assert built == []
