"""See what the compiler did: an annotated HTML page per function (`f.inspect_types(
pretty=True)`, `python -m ember.annotate`), and `compile_report()` of compile times.

Each source line is shaded by what its optimized machine code does (pure native, may raise,
calls the runtime, allocates, boxes or calls Python); see docs/annotate.md.
"""

from __future__ import annotations

from ember.annotate.report import CompileReport, compile_report


class AnnotatedPage:
    """The annotated view of one function's specializations: `.html` is a self-contained
    page; a notebook shows it inline (`_repr_html_`); `.save(path)` writes it."""

    def __init__(self, views: list) -> None:
        self.views = views

    @property
    def html(self) -> str:
        from ember.annotate.page import render_page

        return render_page(self.views)

    def _repr_html_(self) -> str:
        from ember.annotate.page import render_fragment

        return render_fragment(self.views)

    def save(self, path: str) -> None:
        with open(path, "w", encoding="utf-8") as out:
            out.write(self.html)

    def __repr__(self) -> str:
        names = ", ".join(f"{v.qualname}{v.signature}" for v in self.views)
        return f"<AnnotatedPage of {names}>"


def annotate(dispatcher, signature: tuple | None = None) -> AnnotatedPage:
    """The annotated page of a jitted function: each compiled signature, or only `signature`
    (argument types; compiled if needed)."""
    from ember.annotate.build import function_view
    from ember.errors import UnsupportedError

    if not hasattr(dispatcher, "overloads") or not hasattr(dispatcher, "compile"):
        raise UnsupportedError(
            f"ember.annotate needs an @njit function, not {dispatcher!r} (object mode and "
            "@cfunc functions have no annotated view)"
        )
    chosen = [tuple(signature)] if signature is not None else list(dispatcher.overloads)
    if not chosen:
        name = dispatcher.py_func.__qualname__
        raise ValueError(f"{name} has no compiled signature yet: call it first, or pass signature=")
    return AnnotatedPage([function_view(dispatcher, arg_types) for arg_types in chosen])


__all__ = ["AnnotatedPage", "CompileReport", "annotate", "compile_report"]
