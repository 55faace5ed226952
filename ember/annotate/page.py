"""The annotated HTML page: one self-contained document (no script, no network) per function.

Consumes FunctionViews (ember/annotate/build.py); each source line is a row shaded by its kind,
and a `<details>` element opens its typed IR and optimized LLVM; loops carry a badge saying
whether LLVM vectorized them and, under parallel=True, whether they became parfors.
"""

from __future__ import annotations

import re
from html import escape

from ember.annotate.build import FunctionView, LineView
from ember.annotate.llvm_lines import KINDS

# (background, stripe) per kind: the stripe is the strong colour at the row's left edge.
COLOURS = {
    "native": ("#e8f5e9", "#2e7d32"),
    "raises": ("#f3e5f5", "#8e24aa"),
    "runtime": ("#fff8c4", "#f9a825"),
    "allocates": ("#ffe0b2", "#ef6c00"),
    "python": ("#ffcdd2", "#c62828"),
}
DESCRIPTIONS = {
    "native": "pure native code",
    "raises": "may raise an exception",
    "runtime": "calls ember's runtime (reference counts, frees)",
    "allocates": "allocates memory",
    "python": "boxes values or calls Python",
}
STRIPE_WIDTH = 8  # pixels: the screenshot test reads the colours there

_STYLE = """
body { margin: 0; font-family: sans-serif; color: #1a1a1a; background: #ffffff; }
header, section.info { padding: 8px 16px; }
h1 { font-size: 20px; margin: 8px 0; }
h2 { font-size: 16px; margin: 12px 0 4px; }
.legend span.key { display: inline-block; padding: 2px 8px; margin: 2px 4px 2px 0;
  border-left-width: STRIPEpx; border-left-style: solid; }
table.info { border-collapse: collapse; font-size: 13px; }
table.info td, table.info th { border: 1px solid #ccc; padding: 2px 8px; text-align: left; }
.source { font-family: monospace; font-size: 14px; margin-top: 8px; }
.line { border-left: STRIPEpx solid transparent; }
.line > summary, .line.empty { display: flex; list-style: none; cursor: default;
  line-height: 20px; min-height: 20px; white-space: pre; }
.line > summary::-webkit-details-marker { display: none; }
.line > summary { cursor: pointer; }
.lineno { display: inline-block; width: 48px; text-align: right; padding-right: 12px;
  color: #666; flex: none; }
.badge { margin-left: 16px; padding: 0 6px; font-family: sans-serif; font-size: 12px;
  line-height: 16px; align-self: center;
  border: 1px solid #888; border-radius: 3px; background: #fff; }
.badge.vectorized { border-color: #2e7d32; color: #2e7d32; }
.badge.parfor { border-color: #1565c0; color: #1565c0; }
.detail { background: #fafafa; border-top: 1px solid #ddd; border-bottom: 1px solid #ddd;
  padding: 4px 16px 4px 60px; }
.detail h3 { font-family: sans-serif; font-size: 12px; margin: 6px 0 2px; color: #444; }
.detail pre { margin: 0; font-size: 12px; white-space: pre-wrap; }
""".replace("STRIPE", str(STRIPE_WIDTH))

_STYLE += "".join(
    f".k-{kind} {{ background: {back}; border-left-color: {stripe}; }}\n"
    f".key.k-{kind} {{ border-left-color: {stripe}; }}\n"
    for kind, (back, stripe) in COLOURS.items()
)


def render_page(views: list[FunctionView]) -> str:
    """A complete HTML document for the specializations of one function."""
    title = escape(views[0].qualname if views else "ember")
    body = "\n".join(render_function(view) for view in views)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>ember: {title}</title><style>{_STYLE}</style></head>\n"
        f"<body>\n{body}\n</body></html>\n"
    )


def render_fragment(views: list[FunctionView]) -> str:
    """The page's content for embedding (a notebook cell): the style scoped to a div."""
    body = "\n".join(render_function(view) for view in views)
    return f'<div class="ember-annotate"><style>{_scoped(_STYLE)}</style>{body}</div>'


def _scoped(style: str, scope: str = ".ember-annotate") -> str:
    """The style with every selector under `scope` (`body` becomes the scope itself), so a
    notebook cell's page restyles nothing around it."""

    def prefix(match: re.Match) -> str:
        selectors = [selector.strip() for selector in match.group(1).split(",")]
        scoped = [scope if s == "body" else f"{scope} {s}" for s in selectors]
        return ", ".join(scoped) + " {"

    return re.sub(r"^([^{}\n][^{}]*?)\s*\{", prefix, style, flags=re.MULTILINE)


def render_function(view: FunctionView) -> str:
    parts = [
        f'<article class="function" data-function="{escape(view.qualname)}">',
        "<header>",
        f"<h1>{escape(view.qualname)}{escape(view.signature)}</h1>",
        f"<div>{escape(view.filename)}</div>",
        _legend(),
        "</header>",
        '<section class="info">',
        _variables(view),
        _loops(view),
        "</section>",
        '<div class="source">',
        *(_line(line) for line in view.lines),
        "</div>",
        "</article>",
    ]
    return "\n".join(part for part in parts if part)


def _legend() -> str:
    keys = "".join(
        f'<span class="key k-{kind}">{escape(DESCRIPTIONS[kind])}</span>' for kind in KINDS
    )
    return f'<div class="legend">{keys} — click a line for its typed IR and LLVM</div>'


def _variables(view: FunctionView) -> str:
    rows = "".join(
        f"<tr><td><code>{escape(name)}</code></td><td><code>{escape(typ)}</code></td></tr>"
        for name, typ in view.variables
    )
    return (
        '<h2>Variables</h2><table class="info variables">'
        f"<tr><th>variable</th><th>type</th></tr>{rows}</table>"
    )


def _loops(view: FunctionView) -> str:
    if not view.loops:
        return ""
    rows = "".join(
        f'<tr data-line="{loop.line}"><td>{loop.line}</td>'
        f"<td>{'yes' if loop.vectorized else 'no'}</td>"
        f"<td>{escape(_remarks(loop))}</td>"
        f"<td>{escape(loop.parallel or '-')}</td></tr>"
        for loop in view.loops
    )
    return (
        '<h2>Loops</h2><table class="info loops"><tr><th>line</th><th>vectorized</th>'
        f"<th>LLVM's remarks</th><th>parallel</th></tr>{rows}</table>"
    )


def _remarks(loop) -> str:
    text = "; ".join(loop.remarks) or "no remark from LLVM (unrolled, removed or not a loop)"
    return f"a loop in the code this line calls: {text}" if loop.in_callee else text


def _line(line: LineView) -> str:
    expandable = bool(line.typed_ir or line.llvm)
    classes = "line" + (f" k-{line.kind}" if line.kind else "") + ("" if expandable else " empty")
    attributes = f'class="{classes}" data-line="{line.number}"'
    if line.kind:
        attributes += f' data-kind="{line.kind}" title="{escape(DESCRIPTIONS[line.kind])}"'
    head = (
        f'<span class="lineno">{line.number}</span><span class="code">{escape(line.text)}</span>'
        f"{_badges(line)}"
    )
    if not expandable:
        return f"<div {attributes}>{head}</div>"
    detail = ""
    if line.typed_ir:
        detail += f"<h3>typed IR</h3><pre>{escape(chr(10).join(line.typed_ir))}</pre>"
    if line.llvm:
        detail += f"<h3>optimized LLVM</h3><pre>{escape(chr(10).join(line.llvm))}</pre>"
    summary = f"<summary>{head}</summary>"
    return f'<details {attributes}>{summary}<div class="detail">{detail}</div></details>'


def _badges(line: LineView) -> str:
    loop = line.loop
    if loop is None:
        return ""
    vector = "vectorized" if loop.vectorized else "not vectorized"
    label = "inner loop" if loop.in_callee else "loop"
    badges = f'<span class="badge loop {vector.replace(" ", "-")}">{label}: {vector}</span>'
    if loop.parallel:
        kind = "parfor" if loop.parallel.startswith("parfor") else "serial"
        badges += f'<span class="badge {kind}">{escape(loop.parallel)}</span>'
    return badges
