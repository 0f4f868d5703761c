"""The conflicts screen: candidate pairs of memories (and CLAUDE.md rules), each with its
verdict, the two sides next to each other and a word diff; one key per decision.

A job runs the judge (docs/claude-code-rules.md#relations-between-memories): the items are read,
paired and judged with the configured provider. A provider that sends text (anthropic) first
shows its estimate (pairs, tokens, cost, secrets redacted) and sends only after ``y``. Decisions
that change no file (related, compatible, not a conflict) are recorded in the ledger; the pair
is then not raised again until one side changes. Keeping one side (``a``, ``b``) archives the
other through the write path: previewed, journaled, ``u`` undoes it."""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.command import Provider
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import OptionList, Static, Tab, Tabs
from textual.widgets.option_list import Option

from memtui.core.age import age_text
from memtui.core.config import JudgeConfig
from memtui.core.contents import ScanResult
from memtui.core.judge.archive import Archive
from memtui.core.judge.items import CLAUDE_MD
from memtui.core.judge.ledger import USER, Ledger, default_ledger_path
from memtui.core.judge.merge import (
    MergePlan,
    finish_merge,
    kept_side,
    merge_sources,
    plan_merge,
    propose_merge,
)
from memtui.core.judge.providers import Estimate, Judge, ProviderError, load_judge
from memtui.core.judge.resolve import KeepPlan, finish_keep, plan_keep
from memtui.core.judge.run import (
    MAX_SENT_PAIRS,
    JudgeRun,
    collect_items,
    judge_pairs,
    pair_up,
    pairs_to_judge,
)
from memtui.core.judge.scoped import ScopedPlan, finish_scoped, plan_scoped, propose_notes
from memtui.core.judge.verdicts import (
    NEEDS_ACTION,
    Candidate,
    JudgedPair,
    JudgeItem,
    Relation,
    Verdict,
)
from memtui.core.secrets.redact import masked_text
from memtui.core.stores.locations import Context
from memtui.core.write.proposal import AppliedOp, FileDiff
from memtui.tui import clock
from memtui.tui.decisions import confirm_proposal, open_archive
from memtui.tui.dialogs.base import HELP_KEY_ID
from memtui.tui.dialogs.confirm import ConfirmScreen
from memtui.tui.dialogs.decisions import MergeDialog, ScopedDialog
from memtui.tui.dialogs.help import HelpRow, show_help
from memtui.tui.jobs import Job, JobControl, JobRunner
from memtui.tui.palette import ScreenCommands
from memtui.tui.plain import body, line
from memtui.tui.widgets.footer import KeyFooter

FILTERS: tuple[str, ...] = ("open", "stale", "judged", "all")
FILTER_LABELS = {
    "open": "needs a decision",
    "stale": "stale",
    "judged": "judged",
    "all": "every candidate",
}
RECORD_DECISIONS: dict[str, Relation] = {
    "related": Relation.RELATED,
    "compatible": Relation.COMPATIBLE,
    "not_conflict": Relation.NOT_CONFLICT,
}
RELATION_STYLE = {
    Relation.DUPLICATE: "bold yellow",
    Relation.CONFLICTS_WITH: "bold red",
    Relation.SUPERSEDES: "bold magenta",
}
COMPACT_WIDTH = 100
"""Under this width the footer is compact (as on the main screen)."""
DIFF_WORDS = 600
"""Words of each side the word diff compares."""


@dataclass
class Found:
    """What the first job returns: the run so far, the judge, and (for a provider that sends
    text) its estimate, to confirm before judging."""

    run: JudgeRun
    ledger: Ledger
    judge: Judge
    estimate: Estimate | None = None
    todo: list[JudgedPair] = field(default_factory=list)
    """The pairs the estimate is for (what a confirmation sends)."""


def wanted(pair: JudgedPair, name: str) -> bool:
    verdict = pair.verdict or pair.previous
    if name == "all":
        return True
    if name == "stale":
        return pair.state == "stale"
    if name == "judged":
        return pair.state in ("judged", "decided")
    return (
        pair.state != "decided" and verdict is not None and verdict.relation in NEEDS_ACTION
    )


def store_kinds(pairs: list[JudgedPair]) -> list[str]:
    """The store kinds the sides of ``pairs`` live in (``agent``, ``auto``, ``claude-md``…),
    sorted: what the store filter cycles through."""
    return sorted({item.kind for p in pairs for item in (p.candidate.a, p.candidate.b)})


def in_store(pair: JudgedPair, kind: str | None) -> bool:
    """A side of ``pair`` lives in a store of ``kind`` (None: every store)."""
    return kind is None or kind in (pair.candidate.a.kind, pair.candidate.b.kind)


def side_text(item: JudgeItem, keep: bool) -> Text:
    """One side: where it lives, its age and frontmatter, then its body (plain text)."""
    out = Text()
    if keep:
        out.append("proposed to keep\n", style="bold green")
    where = item.kind + (f":{item.agent}" if item.agent else "")
    where += f" ({item.scope})" if item.scope else ""
    out.append(line(where), style="bold")
    out.append("\n")
    out.append(line(item.rel_path + (f" line {item.line}" if item.line else "")), style="dim")
    out.append("\n")
    if item.mtime:
        out.append(age_text(item.mtime, clock.now()), style="dim")
        out.append("\n")
    if item.modified:
        out.append(f"modified {line(item.modified)}\n", style="dim")
    if item.kind != CLAUDE_MD:
        out.append(f"name: {line(item.name)}\n")
    if item.description:
        out.append(f"description: {line(item.description)}\n")
    if item.type:
        out.append(f"type: {line(item.type)}\n")
    out.append("\n")
    out.append(body(masked_text(item.body, path=item.rel_path)))  # a secret: shown masked
    return out


def word_diff(a: str, b: str) -> Text:
    """A's words against B's: removed (only in A) struck red, added (only in B) green."""
    left, right = a.split()[:DIFF_WORDS], b.split()[:DIFF_WORDS]
    out = Text()
    matcher = difflib.SequenceMatcher(a=left, b=right, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            out.append(line(" ".join(left[i1:i2])) + " ", style="dim")
            continue
        if i2 > i1:
            out.append(line(" ".join(left[i1:i2])), style="red strike")
            out.append(" ")
        if j2 > j1:
            out.append(line(" ".join(right[j1:j2])), style="bold green")
            out.append(" ")
    return out


def verdict_text(pair: JudgedPair) -> Text:
    verdict = pair.verdict or pair.previous
    out = Text()
    out.append(f"[{pair.candidate.id}] ", style="dim")
    if verdict is None:
        out.append("not judged yet", style="dim")
        return out
    out.append(verdict.relation.value, style=RELATION_STYLE.get(verdict.relation, "bold"))
    out.append(f"  {verdict.confidence:.2f}  by {line(verdict.judge)}", style="bold")
    out.append(f"  ({pair.state}; {line(', '.join(pair.candidate.reasons))})", style="dim")
    out.append(f"\n{line(verdict.reason)}")
    for tag, quote in zip("AB", verdict.evidence, strict=False):
        out.append(f"\n{tag}: “{line(quote)}”", style="italic")
    if verdict.fallback:
        out.append(f"\njudged locally: {line(verdict.fallback)}", style="yellow")
    if pair.state == "stale":
        out.append("\none side changed since this verdict: it is judged again on the next run",
                   style="yellow")
    return out


def pair_label(pair: JudgedPair) -> Text:
    """Two lines: the verdict and the state, then the two file names."""
    verdict = pair.verdict or pair.previous
    out = Text(no_wrap=True, overflow="ellipsis")
    if verdict is None:
        out.append("not judged", style="dim")
    else:
        out.append(verdict.relation.value, style=RELATION_STYLE.get(verdict.relation, ""))
        out.append(f" {verdict.confidence:.2f}")
    state = {"decided": ("  ✓ decided", "green"), "stale": ("  ~ stale", "yellow")}
    mark, style = state.get(pair.state, ("", ""))
    out.append(mark, style=style)
    c = pair.candidate
    names = f"{_short_name(c.a)} ↔ {_short_name(c.b)}"
    out.append("\n  " + line(names), style="dim")
    return out


NAME_CHARS = 20
"""Characters of each file name in the pair list (two names fit its width)."""


def _short_name(item: JudgeItem) -> str:
    name = item.rel_path.rsplit("/", 1)[-1]
    return name if len(name) <= NAME_CHARS else name[: NAME_CHARS - 1] + "…"


class ConflictsScreen(Screen[None]):
    """Judge conflicts across every store and CLAUDE.md; decide pair by pair."""

    CSS_PATH = "conflicts.tcss"

    COMMANDS: ClassVar[set[type[Provider] | Callable[[], type[Provider]]]] = {ScreenCommands}

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="conflicts.back",
                tooltip="Back to the main screen (a running judge is stopped)"),
        Binding("left", "move(-1)", "Prev pair", show=False, id="conflicts.prev",
                tooltip="The pair above in the list"),
        Binding("right", "move(1)", "Next pair", show=False, id="conflicts.next",
                tooltip="The pair below in the list"),
        Binding("f", "filter", "Filter", id="conflicts.filter",
                tooltip="Show the next filter: needs a decision, stale, judged, every candidate"),
        Binding("k", "store_filter", "Store", show=False, id="conflicts.store",
                tooltip="Show only the pairs with a side in the next kind of store (agent, "
                "auto, CLAUDE.md, team…), then every store again"),
        Binding("a", "keep('a')", "Keep A", id="conflicts.keep_a",
                tooltip="Keep A: archive B (its file and MEMORY.md lines; previewed, undoable)"),
        Binding("b", "keep('b')", "Keep B", id="conflicts.keep_b",
                tooltip="Keep B: archive A (its file and MEMORY.md lines; previewed, undoable)"),
        Binding("s", "scoped", "Scoped", id="conflicts.scoped",
                tooltip="Keep both as scoped: an \"applies when …\" note on each memory, "
                "which you edit (previewed, undoable)"),
        Binding("e", "merge", "Merge", id="conflicts.merge",
                tooltip="Merge: edit the proposed merged memory; it replaces the newer side "
                "and the other is archived (previewed, undoable)"),
        Binding("r", "decide('related')", "Related", id="conflicts.related",
                tooltip="Decide: related (no file changes; not raised again until one changes)"),
        Binding("c", "decide('compatible')", "Compatible", id="conflicts.compatible",
                tooltip="Decide: compatible (no file changes; not raised again until one "
                "changes)"),
        Binding("n", "decide('not_conflict')", "Not a conflict", id="conflicts.not_conflict",
                tooltip="Decide: not a conflict (no file changes; not raised again until one "
                "changes)"),
        Binding("v", "archive", "Archive", id="conflicts.archive",
                tooltip="The archive: memories that decisions took out of their stores; "
                "restore one (previewed, undoable)"),
        Binding("ctrl+r", "rejudge", "Judge again", id="conflicts.rejudge",
                tooltip="Judge every undecided pair again (a provider that sends text asks "
                "first)"),
        Binding("question_mark", "help", "Help", id=HELP_KEY_ID,
                tooltip="Help: every key of this screen (? or esc closes it)"),
    ]
    HELP_EXTRA = (
        HelpRow("↑ ↓", "Move in the list of pairs"),
        HelpRow("tab", "Next widget: the pairs, side A, side B, the word diff"),
    )

    def __init__(
        self, result: ScanResult, context: Context, jobs: JobRunner, config: JudgeConfig
    ) -> None:
        super().__init__()
        self.result = result
        self.context = context
        self.jobs = jobs
        self.config = config
        self.found: Found | None = None
        self.filter = "open"
        self.store_filter: str | None = None
        """Only pairs with a side in this kind of store (None: every store)."""
        self.shown: list[JudgedPair] = []

    def compose(self) -> ComposeResult:
        yield Static(Text(" conflicts ", style="bold reverse"), id="conf-head")
        yield Tabs(*[Tab(FILTER_LABELS[f], id=f"filter-{f}") for f in FILTERS],
                   active="filter-open", id="conf-filters")
        yield Static("", id="conf-message")
        with Horizontal(id="conf-body"):
            yield OptionList(id="conf-pairs")
            with Vertical(id="conf-detail"):
                yield Static("", id="conf-verdict")
                with Horizontal(id="conf-sides"):
                    with VerticalScroll(id="conf-a-scroll"):
                        yield Static("", id="conf-a")
                    with VerticalScroll(id="conf-b-scroll"):
                        yield Static("", id="conf-b")
                with VerticalScroll(id="conf-diff-scroll"):
                    yield Static("", id="conf-diff")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#conf-a-scroll").border_title = "A"
        self.query_one("#conf-b-scroll").border_title = "B"
        self.query_one("#conf-diff-scroll").border_title = "word diff A → B"
        self.query_one("#conf-pairs", OptionList).focus()
        self.apply_size()
        self.find()

    def on_resize(self) -> None:
        self.apply_size()

    def apply_size(self) -> None:
        """A small terminal gets the compact footer (``?`` and ``q`` first, no ``^p``)."""
        footer = self.query_one(KeyFooter)
        footer.fit(self.size.width, COMPACT_WIDTH)  # ? (its help names ^p) and q always fit

    # the jobs ---------------------------------------------------------------------------

    def say(self, message: str, style: str = "") -> None:
        self.query_one("#conf-message", Static).update(Text(line(message), style=style))

    def find(self, rejudge: bool = False) -> None:
        """Read, pair and (with a provider that sends nothing) judge, in a job."""
        try:
            judge = load_judge(self.config.provider, self.config, env=self.context.env)
        except ProviderError as err:
            self.say(f"{err}; using the local judge", "bold yellow")
            judge = load_judge("local", JudgeConfig())
        result, context = self.result, self.context
        self.say(f"reading and pairing memories ({judge.name} judge) …", "dim")

        def run(control: JobControl) -> Found:
            def progress(step: str, done: int, total: int) -> None:
                control.progress(f"judge: {step}", done, total)

            items, problems = collect_items(context, result, cancelled=lambda: control.is_cancelled,
                                            progress=progress)
            control.check()
            ledger = Ledger.load(default_ledger_path(context.env))
            pairs = pair_up(items, ledger, cancelled=lambda: control.is_cancelled)
            control.check()
            found = Found(JudgeRun(items, pairs, notes=[*ledger.problems, *problems]), ledger,
                          judge)
            todo = self.todo(found, rejudge)
            if judge.sends_data:
                found.todo = todo
                found.estimate = judge.estimate([p.candidate for p in todo]) if todo else None
                return found
            self.judge_now(found, todo, control)
            return found

        self.jobs.start(Job("judge", run, group="judge", title="Judge", done=self.found_pairs,
                            failed=lambda why: self.say(why, "bold red")), self)

    def todo(self, found: Found, rejudge: bool) -> list[JudgedPair]:
        limit = MAX_SENT_PAIRS if found.judge.sends_data else None
        return pairs_to_judge(found.run.pairs, rejudge=rejudge, limit=limit)

    @staticmethod
    def judge_now(found: Found, todo: list[JudgedPair], control: JobControl) -> None:
        def step(text: str, done: int, total: int) -> None:
            control.progress(f"judge: {text}", done, total)

        found.run.judged = judge_pairs(todo, found.judge, found.ledger,
                                       rejudge=True, cancelled=lambda: control.is_cancelled,
                                       progress=step)
        found.ledger.save()

    def found_pairs(self, found: Found) -> None:
        self.found = found
        if found.estimate is not None:
            estimate = found.estimate
            body_text = Text(line(estimate.describe()))
            body_text.append("\n\nEvery text is redacted first (secrets become "
                             "[REDACTED:rule]). Nothing is sent unless you say yes.",
                             style="dim")
            for note in estimate.notes:
                body_text.append(f"\n• {line(note)}", style="dim")
            if self.config.spend_cap_usd is not None and \
                    estimate.cost_usd > self.config.spend_cap_usd:
                self.say(f"{estimate.describe()}: over judge.spend_cap_usd "
                         f"(${self.config.spend_cap_usd:g}); nothing was sent", "bold yellow")
                self.show_pairs()
                return
            screen = ConfirmScreen("Send these pairs to Claude?", body_text, yes="Send",
                                   danger=False)
            self.app.push_screen(screen, self.send_confirmed)
        self.show_pairs()

    def send_confirmed(self, yes: bool | None) -> None:
        found = self.found
        if found is None:
            return
        if not yes:
            self.say("nothing was sent: the pairs keep their ledger state", "dim")
            return
        todo = found.todo  # exactly the pairs the estimate counted
        found.estimate = None

        def run(control: JobControl) -> Found:
            self.judge_now(found, todo, control)
            return found

        self.say(f"sending {len(todo)} pairs …", "dim")
        self.jobs.start(Job("judge", run, group="judge", title="Judge", done=self.found_pairs,
                            failed=lambda why: self.say(why, "bold red")), self)

    # showing ----------------------------------------------------------------------------

    def show_pairs(self) -> None:
        found = self.found
        if found is None:
            return
        run = found.run
        self.shown = [p for p in run.pairs
                      if wanted(p, self.filter) and in_store(p, self.store_filter)]
        memories = sum(1 for i in run.items if i.kind != CLAUDE_MD)
        head = Text(" conflicts ", style="bold reverse")
        head.append(f"  {found.judge.name} judge · {memories} memories, "
                    f"{len(run.items) - memories} CLAUDE.md rules · {len(run.pairs)} candidates · "
                    f"{len(run.open_pairs())} need a decision", style="bold")
        if self.store_filter is not None:
            head.append(f" · only {line(self.store_filter)} (k: next store)", style="bold cyan")
        usage = getattr(found.judge, "usage", None)
        if usage is not None and usage.requests:
            head.append(f" · sent {usage.requests} requests, ${usage.cost_usd:.4f}", style="dim")
        self.query_one("#conf-head", Static).update(head)
        notes = [*run.notes, *getattr(found.judge, "notes", [])]
        if not self.shown:
            where = "" if self.store_filter is None else f" in {line(self.store_filter)}"
            self.say(f"no pair {FILTER_LABELS[self.filter]}{where}" +
                     ("" if self.filter != "open" else ": f shows the other pairs"), "green")
        elif notes:
            self.say("; ".join(notes), "yellow")
        else:
            self.say("")
        pairs = self.query_one("#conf-pairs", OptionList)
        keep = pairs.highlighted
        pairs.clear_options()
        pairs.add_options([Option(pair_label(p), id=p.candidate.id) for p in self.shown])
        if self.shown:
            pairs.highlighted = min(keep or 0, len(self.shown) - 1)
            self.show_pair(self.shown[pairs.highlighted])
        else:
            self.show_pair(None)
        self.refresh_bindings()

    def show_pair(self, pair: JudgedPair | None) -> None:
        verdict_static = self.query_one("#conf-verdict", Static)
        if pair is None:
            for name in ("#conf-verdict", "#conf-a", "#conf-b", "#conf-diff"):
                self.query_one(name, Static).update("")
            return
        verdict = pair.verdict or pair.previous
        winner = verdict.winner if verdict is not None else None
        verdict_static.update(verdict_text(pair))
        self.query_one("#conf-a", Static).update(side_text(pair.candidate.a, winner == "a"))
        self.query_one("#conf-b", Static).update(side_text(pair.candidate.b, winner == "b"))
        self.query_one("#conf-diff", Static).update(word_diff(
            masked_text(pair.candidate.a.text, path=pair.candidate.a.rel_path),
            masked_text(pair.candidate.b.text, path=pair.candidate.b.rel_path),
        ))

    @on(OptionList.OptionHighlighted, "#conf-pairs")
    def highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if 0 <= event.option_index < len(self.shown):
            self.show_pair(self.shown[event.option_index])

    @on(Tabs.TabActivated, "#conf-filters")
    def filter_tab(self, event: Tabs.TabActivated) -> None:
        name = (event.tab.id or "").removeprefix("filter-")
        if name in FILTERS and name != self.filter:
            self.filter = name
            self.show_pairs()

    # actions ----------------------------------------------------------------------------

    def current(self) -> JudgedPair | None:
        index = self.query_one("#conf-pairs", OptionList).highlighted
        return self.shown[index] if index is not None and 0 <= index < len(self.shown) else None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("decide", "keep", "scoped", "merge"):
            return True if self.current() is not None else None
        return True

    def action_keep(self, side: str) -> None:
        """Keep one side: the other is archived (previewed, journaled, undoable)."""
        pair, found = self.current(), self.found
        if pair is None or found is None:
            return
        result, candidate = self.result, pair.candidate

        def plan(_control: JobControl) -> tuple[KeepPlan, list[FileDiff]]:
            kept = plan_keep(result, candidate, side)
            return kept, kept.proposal.diff()

        self.jobs.start(Job("planning the decision", plan, group="plan-keep",
                            title="Cannot keep " + side.upper(), done=self.confirm_keep), self)

    def confirm_keep(self, planned: tuple[KeepPlan, list[FileDiff]]) -> None:
        kept, diffs = planned
        archive, ledger = Archive.default(self.context.env), self.ledger()
        name = line(kept.memory.rel_path)
        confirm_proposal(
            self, self.jobs, self.context, kept.proposal, diffs,
            title=f"Keep {kept.keep.upper()} and archive {'B' if kept.keep == 'a' else 'A'}?",
            yes="Archive", label=f"archive {name}",
            message=lambda _op: f"archived {name} (kept {kept.winner.rel_path}) · u to undo",
            after=lambda done: finish_keep(kept, done, archive, ledger),
            finished=lambda op: self.gone(kept.loser.key, op),
        )

    def ledger(self) -> Ledger:
        return self.found.ledger if self.found is not None else Ledger.load(
            default_ledger_path(self.context.env))

    def gone(self, key: str, op: AppliedOp | None) -> None:
        """A side left its store (archived): its pairs leave the list."""
        found = self.found
        if op is None or found is None:
            return
        found.run.pairs = [p for p in found.run.pairs
                           if key not in (p.candidate.a.key, p.candidate.b.key)]
        self.show_pairs()

    def action_scoped(self) -> None:
        """Keep both as scoped: the user edits each side's "applies when" note, then the
        preview; both notes are one operation."""
        pair = self.current()
        if pair is None:
            return
        candidate = pair.candidate
        proposed = propose_notes(candidate, pair.verdict or pair.previous)
        if not proposed:
            self.notify("Both sides are CLAUDE.md rules: memtui does not edit CLAUDE.md files.",
                        title="Cannot scope", severity="warning")
            return
        sides = {"a": candidate.a, "b": candidate.b}

        def written(notes: dict[str, str] | None) -> None:
            if notes is not None:
                self.plan_scoped(pair, notes)

        self.app.push_screen(ScopedDialog(sides, proposed), written)

    def plan_scoped(self, pair: JudgedPair, notes: dict[str, str]) -> None:
        result, candidate = self.result, pair.candidate

        def plan(_control: JobControl) -> tuple[ScopedPlan, list[FileDiff]]:
            scoped = plan_scoped(result, candidate, notes)
            return scoped, scoped.proposal.diff()

        def planned(done: tuple[ScopedPlan, list[FileDiff]]) -> None:
            scoped, diffs = done
            ledger = self.ledger()
            confirm_proposal(
                self, self.jobs, self.context, scoped.proposal, diffs,
                title="Keep both as scoped?", yes="Write the notes", danger=False,
                label="scope " + " and ".join(line(s.memory.rel_path) for s in scoped.sides),
                message=lambda _op: "scoped: an \"applies when\" note on each · u to undo",
                after=lambda _done: finish_scoped(scoped, ledger),
                finished=lambda op: self.scoped(pair, scoped, op),
            )

        self.jobs.start(Job("planning the notes", plan, group="plan-scoped",
                            title="Cannot scope", done=planned), self)

    def scoped(self, pair: JudgedPair, scoped: ScopedPlan, op: AppliedOp | None) -> None:
        if op is None:
            return
        said = "; ".join(f"{s.tag.upper()} applies when {s.note}" for s in scoped.sides)
        pair.candidate = scoped.after
        pair.previous = pair.verdict or pair.previous
        pair.verdict = Verdict(Relation.SCOPED, 1.0, f"decided: scoped ({said})", USER)
        pair.state = "decided"
        self.show_pairs()

    def action_merge(self) -> None:
        """Merge: memtui proposes one memory holding both, the user edits it, then the
        preview: it replaces the newer side, the other is archived, as one operation."""
        pair = self.current()
        if pair is None:
            return
        result, candidate = self.result, pair.candidate

        def propose(_control: JobControl) -> tuple[str, bytes, bytes]:
            keep = kept_side(candidate)
            kept, other = merge_sources(result, candidate, keep)
            return keep, kept, propose_merge(kept, other)

        def proposed(done: tuple[str, bytes, bytes]) -> None:
            keep, kept, merged = done
            crlf = b"\r\n" in kept
            winner, loser = (candidate.a, candidate.b) if keep == "a" else (
                candidate.b, candidate.a)
            text = merged.decode("utf-8", errors="replace").replace("\r\n", "\n")

            def edited(new: str | None) -> None:
                if new is not None:
                    data = (new.replace("\n", "\r\n") if crlf else new).encode("utf-8")
                    self.plan_merge(candidate, keep, data)

            self.app.push_screen(MergeDialog(winner, loser, text), edited)

        self.jobs.start(Job("proposing the merge", propose, group="plan-merge",
                            title="Cannot merge", done=proposed), self)

    def plan_merge(self, candidate: Candidate, keep: str, merged: bytes) -> None:
        result = self.result

        def plan(_control: JobControl) -> tuple[MergePlan, list[FileDiff]]:
            planned = plan_merge(result, candidate, keep, merged)
            return planned, planned.proposal.diff()

        def planned(done: tuple[MergePlan, list[FileDiff]]) -> None:
            merge, diffs = done
            archive, ledger = Archive.default(self.context.env), self.ledger()
            name = line(merge.keep.memory.rel_path)
            confirm_proposal(
                self, self.jobs, self.context, merge.proposal, diffs,
                title=f"Merge into {keep.upper()} and archive "
                f"{'B' if keep == 'a' else 'A'}?",
                yes="Merge", label=f"merge {name}",
                message=lambda _op: f"merged {name} into {merge.keep.winner.rel_path} "
                "· u to undo",
                after=lambda done: finish_merge(merge, done, archive, ledger),
                finished=lambda op: self.gone(merge.keep.loser.key, op),
            )

        self.jobs.start(Job("planning the merge", plan, group="plan-merge",
                            title="Cannot merge", done=planned), self)

    def action_archive(self) -> None:
        open_archive(self, self.jobs, self.context)

    def action_back(self) -> None:
        self.jobs.cancel_group("judge")
        self.dismiss(None)

    def action_help(self) -> None:
        show_help(self, "Keys of the conflicts screen", self.HELP_EXTRA)

    def action_move(self, step: int) -> None:
        pairs = self.query_one("#conf-pairs", OptionList)
        if not self.shown:
            return
        index = (pairs.highlighted or 0) + step
        pairs.highlighted = max(0, min(len(self.shown) - 1, index))

    def action_filter(self) -> None:
        following = FILTERS[(FILTERS.index(self.filter) + 1) % len(FILTERS)]
        self.query_one("#conf-filters", Tabs).active = f"filter-{following}"

    def action_store_filter(self) -> None:
        """The next kind of store (of the pairs the filter shows), then every store again."""
        if self.found is None:
            return
        filtered = [p for p in self.found.run.pairs if wanted(p, self.filter)]
        cycle: list[str | None] = [None, *store_kinds(filtered)]
        at = cycle.index(self.store_filter) if self.store_filter in cycle else 0
        self.store_filter = cycle[(at + 1) % len(cycle)]
        self.show_pairs()

    def action_rejudge(self) -> None:
        self.find(rejudge=True)

    def action_decide(self, decision: str) -> None:
        pair, found = self.current(), self.found
        if pair is None or found is None:
            return
        relation = RECORD_DECISIONS[decision]
        verdict = Verdict(relation, 1.0, f"decided: {decision}", USER)
        ledger = found.ledger
        try:
            ledger.record(pair.candidate, verdict, note=decision)
            ledger.save()
        except OSError as err:
            self.notify(line(f"the ledger could not be saved: {err}"), title="Judge",
                        severity="error", markup=False)
            return
        pair.previous = pair.verdict or pair.previous
        pair.verdict = replace(verdict)
        pair.state = "decided"
        self.notify(line(f"{decision.replace('_', ' ')}: not raised again until one side "
                         "changes"), title="Decided", markup=False)
        self.show_pairs()
