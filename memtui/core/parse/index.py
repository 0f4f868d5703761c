"""The old home of the MEMORY.md parsers, kept for ``memtui/tui`` (being rewritten), which
imports these names from here: new code imports them from the modules that define them.

- ``load_report``: what Claude Code loads of a MEMORY.md (the load report);
- ``main_session_text``: the text the main session measures (frontmatter, comments stripped);
- ``index_entries``: the entries of an index;
- ``link_targets``: where an entry's target points;
- ``topic_files``: the topic files distil wrote;
- ``wikilinks``: ``[[wikilinks]]`` and the broken ones;
- ``index_health``: an index against its store.
"""

from __future__ import annotations

from memtui.core.parse.index_entries import parse_entries as parse_entries
from memtui.core.parse.load_report import MAX_LINES as MAX_LINES
from memtui.core.parse.load_report import MAX_UNITS as MAX_UNITS
from memtui.core.parse.load_report import load_report as load_report
