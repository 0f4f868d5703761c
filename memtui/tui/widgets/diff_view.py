"""The diff of planned file changes, as every preview shows it (the confirm dialog of a delete,
the snapshot review): a status line per file, then its colored unified diff."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.text import Text
from textual.widgets import Static

from memtui.core.plaintext import escape_diff
from memtui.core.write.proposal import FileDiff
from memtui.tui.plain import line

STATUS_LETTER = {"added": "A", "changed": "M", "deleted": "D", "unchanged": "="}
STATUS_STYLE = {"added": "green", "changed": "yellow", "deleted": "bold red", "unchanged": "dim"}


def status_line(diff: FileDiff) -> Text:
    """``A file.md`` / ``M`` / ``D`` / ``=`` (unchanged), colored."""
    text = Text()
    text.append(STATUS_LETTER[diff.status], style=STATUS_STYLE[diff.status])
    text.append(f" {line(diff.rel)}", style="dim" if diff.status == "unchanged" else "")
    if diff.binary:
        text.append("  (binary)", style="dim")
    return text


def colored_diff(unified: str, rel: str) -> Text:
    """The unified diff of ``rel`` with ``+`` lines green, ``-`` lines red and hunk headers cyan
    (control characters escaped, in the contents and in the file name of the headers)."""
    text = Text()
    for diff_line in escape_diff(unified, rel).splitlines(keepends=True):
        if diff_line.startswith(("+++", "---")):
            text.append(diff_line, style="bold")
        elif diff_line.startswith("@@"):
            text.append(diff_line, style="cyan")
        elif diff_line.startswith("+"):
            text.append(diff_line, style="green")
        elif diff_line.startswith("-"):
            text.append(diff_line, style="red")
        else:
            text.append(diff_line)
    return text


def file_view(diff: FileDiff, deleted_note: str | None = None) -> RenderableType:
    """One file: its status line, then its colored diff (a binary file's summary, a note for
    an unchanged one; ``deleted_note`` above a deleted file's full contents)."""
    head = status_line(diff)
    if diff.binary:
        return Group(head, Text(line(diff.unified), style="dim"))
    if diff.status == "unchanged":
        return Group(head, Text("unchanged: the local file already has these bytes", style="dim"))
    if diff.status == "deleted" and deleted_note is not None:
        return Group(head, Text(deleted_note, style="bold red"),
                     colored_diff(diff.unified, diff.rel))
    return Group(head, colored_diff(diff.unified, diff.rel))


def diffs_view(
    diffs: Sequence[FileDiff], title: str | None = None, deleted_note: str | None = None
) -> RenderableType:
    """Each file's view, one under the other, under ``title`` if given."""
    parts: list[RenderableType] = [Text(title, style="bold")] if title else []
    parts += [file_view(diff, deleted_note) for diff in diffs]
    return Group(*parts)


class DiffView(Static):
    """Planned changes, file by file (shown as plain text: names and contents come from
    disk)."""

    DEFAULT_CSS = """
    DiffView { height: auto; }
    """

    def __init__(
        self,
        diffs: Sequence[FileDiff] = (),
        *,
        title: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(diffs_view(diffs, title) if diffs else "", id=id, classes=classes)

    def show(
        self,
        diffs: Sequence[FileDiff],
        *,
        title: str | None = None,
        deleted_note: str | None = None,
    ) -> None:
        self.update(diffs_view(diffs, title, deleted_note) if diffs else "")
