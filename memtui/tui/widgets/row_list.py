"""An option list whose rows can be relabelled in place: the conflicts screen gives a pair
its verdict while thousands of other rows stay as they are.

Textual's ``OptionList.replace_option_prompt_at_index`` clears the list's line cache: the
next frame measures every option again (0.2 s for 6,700 rows, on each batch of verdicts).
A row whose new label has as many lines as the old one takes no other place, so
:meth:`RowList.relabel` only forgets the drawn lines (those on screen are drawn again) and
keeps where every row is. A label with another number of lines goes Textual's way."""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text
from textual.widgets import OptionList


def _lines(prompt: object) -> int | None:
    """How many lines ``prompt`` takes (a ``Text`` that does not wrap), None: unknown."""
    if isinstance(prompt, Text) and prompt.no_wrap:
        return prompt.plain.count("\n") + 1
    return None


class RowList(OptionList):
    """:class:`OptionList` with :meth:`relabel`."""

    def relabel(self, labels: Iterable[tuple[int, Text]]) -> int:
        """Give the options at these indexes these labels, drawn on the next frame; the
        number relabelled (an index past the list is skipped)."""
        count = 0
        cache = getattr(self, "_option_render_cache", None)
        for index, label in labels:
            if not 0 <= index < self.option_count:
                continue
            option = self.get_option_at_index(index)
            before = _lines(option.prompt)
            if cache is None or before is None or before != _lines(label):
                self.replace_option_prompt_at_index(index, label)  # laid out again
            else:
                option._set_prompt(label)  # the same place: only drawn again
            count += 1
        if count and cache is not None:
            cache.clear()  # the rows' drawn lines: those on screen are drawn again
            self.refresh()
        return count
