"""Markdown heading paths: which headings stand above a position of a text.

A *heading* is an ATX heading line (CommonMark): up to three spaces, 1-6 ``#``,
then a space, a tab or the end of the line; its title is the rest of the line
with the closing ``#`` sequence and surrounding whitespace removed.  Lines inside
fenced code blocks (```` ``` ```` or ``~~~``, closed by a fence of the same
character at least as long) are never headings.  Setext headings (a line
underlined with ``===`` / ``---``) are not recognised: ``---`` is just as often a
rule or front matter.

The *heading path* at a position ``p`` is built from the headings whose lines
start before ``p``, in order: a heading of level ``k`` replaces every heading of
level ``k`` or deeper.  So a chunk that starts with a heading line carries that
heading in its text and its parents in its path.

Invariant: the path at ``p`` depends only on the text, never on how it was fed
(:class:`HeadingTracker` reads lines as they complete).  A title is at most
``TITLE_MAX`` characters of its line, so the path at ``p`` is decided once
``TITLE_MAX`` characters past the start of the line holding ``p - 1`` are seen,
and the tracker holds at most one incomplete line of that length.

>>> text = "# Guide\\nintro\\n## Install\\n```\\n# not a heading\\n```\\nstep\\n# Next\\n"
>>> t = HeadingTracker()
>>> t.feed(text); t.finish()
>>> t.path_at(text.index("intro")), t.path_at(text.index("step")), t.path_at(len(text))
(('Guide',), ('Guide', 'Install'), ('Next',))
"""

from __future__ import annotations

from collections import deque

import regex

__all__ = ["HeadingTracker", "TITLE_MAX", "format_context"]

TITLE_MAX = 256  # characters of a heading line kept as its title

_ATX = regex.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*\r?\Z")
_FENCE = regex.compile(r" {0,3}(`{3,}|~{3,})(.*)")


class HeadingTracker:
    """Reads text in order and answers heading paths at increasing positions.

    ``feed(text)`` appends text; ``finish()`` marks its end; ``path_at(p)`` (``p``
    never smaller than at the previous call) returns the path at ``p`` or ``None``
    when the text fed so far cannot decide it yet.
    """

    __slots__ = ("_pos", "_line", "_line_start", "_fence", "_events", "_stack", "_done", "_at", "_skip")

    def __init__(self) -> None:
        self._pos = 0  # characters fed
        self._line: list[str] = []  # the incomplete last line (at most TITLE_MAX + 8 kept)
        self._line_start = 0
        self._fence: tuple[str, int] | None = None  # open fence: (character, length)
        self._events: deque[tuple[int, int, str]] = deque()  # (line start, level, title)
        self._stack: list[tuple[int, str]] = []
        self._done = False
        self._at = 0
        self._skip = False  # the current line was decided early: ignore its rest

    def feed(self, text: str) -> None:
        if self._done:
            raise ValueError("feed after finish")
        start = 0
        n = len(text)
        while start < n:
            nl = text.find("\n", start)
            if nl < 0:
                self._keep(text[start:])
                self._pos += n - start
                return
            self._keep(text[start:nl])
            self._pos += nl + 1 - start
            self._end_line()
            self._line_start = self._pos
            start = nl + 1

    def finish(self) -> None:
        if not self._done:
            if self._pos > self._line_start or self._skip:
                self._end_line()
            self._done = True

    def _keep(self, part: str) -> None:
        if self._skip:
            return
        room = TITLE_MAX + 8 - sum(len(p) for p in self._line)
        if room > 0 and part:
            self._line.append(part[:room])

    def _end_line(self) -> None:
        line = "".join(self._line)
        self._line.clear()
        if self._skip:
            self._skip = False
            return
        fence = self._fence
        m = _FENCE.match(line)
        if fence is not None:
            if m is not None and m.group(1)[0] == fence[0] and len(m.group(1)) >= fence[1] and not m.group(2).strip():
                self._fence = None
            return
        if m is not None and not (m.group(1)[0] == "`" and "`" in m.group(2)):
            self._fence = (m.group(1)[0], len(m.group(1)))
            return
        h = _ATX.match(line[: TITLE_MAX + 8])
        if h is not None:
            title = (h.group(2) or "").strip()[:TITLE_MAX]
            self._events.append((self._line_start, len(h.group(1)), title))

    def path_at(self, p: int) -> tuple[str, ...] | None:
        if p < self._at:
            raise ValueError("positions must not decrease")
        self._at = p
        if not self._done and p > self._pos:
            return None
        if not self._done and p > self._line_start and not self._skip:
            # The line holding p - 1 is incomplete: decided only if it is long enough that
            # its first TITLE_MAX + 8 characters settle it (a title never reads further).
            if self._pos - self._line_start < TITLE_MAX + 8:
                return None
            self._end_line()
            self._skip = True  # its rest is read but never looked at
        events = self._events
        stack = self._stack
        while events and events[0][0] < p:
            _, level, title = events.popleft()
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, title))
        return tuple(title for _, title in stack)


def format_context(title: str, headings: tuple[str, ...]) -> str:
    """The default context prefix: the title, the heading path joined by `` > ``, a blank line.

    >>> format_context("Guide", ("Install", "Linux"))
    'Guide\\nInstall > Linux\\n\\n'
    >>> format_context("", ())
    ''
    """
    lines = [line for line in (title, " > ".join(headings)) if line]
    return "\n".join(lines) + "\n\n" if lines else ""
