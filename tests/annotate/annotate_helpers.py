"""Functions with one line of each kind, and a reader of the annotated page's HTML."""

from __future__ import annotations

import inspect
from html.parser import HTMLParser

import numpy as np

from ember import njit, objmode, prange


def every_kind(a, n):
    total = 0.0
    for i in range(a.size):
        total += a[i] * 2.0  # native
    # a comment: no code
    b = np.empty(n)  # allocates
    b[:] = 1.0
    first = b[0]  # the last use of b: releases it (runtime)
    if n > 100:
        raise ValueError("n too large")  # raises
    with objmode(t="float64"):  # python
        t = 1.0
    return total + first + t


def doubled_into(a, out):
    for i in range(a.size):  # vectorizable: independent elements
        out[i] = a[i] * 2.0
    return out


def float_sum(a):
    s = 0.0
    for i in range(a.size):  # vectorized, adding in order (reordering would change the sum)
        s += a[i]
    return s


def decaying_sum(a):
    s = 0.0
    for i in range(a.size):  # not vectorized: each step scales the previous total
        s = s * 0.5 + a[i]
    return s


def parallel_sum(a):
    s = 0.0
    for i in prange(a.size):  # a parfor
        s += a[i]
    return s


def same_element_written(a):
    b = np.zeros(3)
    for i in prange(len(a)):  # stays serial: every iteration writes b[0]
        b[0] = a[i]
    return b


every_kind_jit = njit(every_kind)
doubled_into_jit = njit(doubled_into)
float_sum_jit = njit(float_sum)
fast_float_sum_jit = njit(fastmath=True)(float_sum)
decaying_sum_jit = njit(decaying_sum)
parallel_sum_jit = njit(parallel=True)(parallel_sum)
same_element_written_jit = njit(parallel=True)(same_element_written)


def line_of(function, marker: str) -> int:
    """The file line number of the source line of `function` containing `marker`."""
    lines, first = inspect.getsourcelines(function)
    (offset,) = [i for i, text in enumerate(lines) if marker in text]
    return first + offset


class PageLine:
    def __init__(self, tag: str, attributes: dict) -> None:
        self.tag = tag
        self.kind = attributes.get("data-kind")
        self.classes = (attributes.get("class") or "").split()
        self.text = ""  # everything inside the row: code, badges and expanded detail
        self.badges: list[str] = []


class AnnotatedPageReader(HTMLParser):
    """Rows of the page by line number (tag, kind, text), and the variable table."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.lines: dict[int, PageLine] = {}
        self.variables: dict[str, str] = {}
        self.loop_rows: dict[int, list[str]] = {}
        self._open: list[tuple[str, object]] = []
        self._row: list[str] | None = None
        self._table = None
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        classes = (attributes.get("class") or "").split()
        if "line" in classes and "data-line" in attributes:
            line = PageLine(tag, attributes)
            self.lines[int(attributes["data-line"])] = line
            self._open.append((tag, line))
        elif self._open:
            self._open.append((tag, None))
        if tag == "table":
            self._table = "variables" if "variables" in classes else "loops"
        if tag == "tr":
            self._row = []
        if tag == "span" and "badge" in classes and self._current_line():
            self._current_line().badges.append("")

    def handle_endtag(self, tag):
        if self._open:
            self._open.pop()
        if tag == "tr" and self._row:
            if self._table == "variables" and self._row[0] != "variable":
                self.variables[self._row[0]] = self._row[1]
            elif self._table == "loops" and self._row[0] != "line":
                self.loop_rows[int(self._row[0])] = self._row[1:]
            self._row = None

    def handle_data(self, data):
        line = self._current_line()
        if line is not None:
            line.text += data
            if self._open and self._open[-1][0] == "span" and line.badges:
                line.badges[-1] += data
        if self._row is not None and data.strip():
            self._row.append(data.strip())

    def _current_line(self) -> PageLine | None:
        for _, line in reversed(self._open):
            if line is not None:
                return line
        return None
