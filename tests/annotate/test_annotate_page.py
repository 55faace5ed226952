"""The annotated page (`f.inspect_types(pretty=True)`, ember.annotate): each line's shading,
its typed IR and LLVM, the variables' types, loops vectorized or not, parfors."""

from __future__ import annotations

import numpy as np
import pytest
from annotate_helpers import (
    AnnotatedPageReader,
    decaying_sum,
    decaying_sum_jit,
    doubled_into_jit,
    every_kind,
    every_kind_jit,
    fast_float_sum_jit,
    float_sum,
    float_sum_jit,
    line_of,
    parallel_sum,
    parallel_sum_jit,
    same_element_written,
    same_element_written_jit,
)

import ember
from ember import types
from ember.annotate import AnnotatedPage
from ember.errors import UnsupportedError

VECTOR = np.linspace(-2.0, 3.0, 37)


def _page(dispatcher, *args) -> AnnotatedPageReader:
    expected = dispatcher.py_func(*(a.copy() if isinstance(a, np.ndarray) else a for a in args))
    np.testing.assert_allclose(dispatcher(*args), expected)  # the annotated code is the real one
    page = dispatcher.inspect_types(pretty=True)
    assert isinstance(page, AnnotatedPage)
    return AnnotatedPageReader(page.html)


@pytest.fixture(scope="module")
def every_kind_page():
    return _page(every_kind_jit, VECTOR, 5)


@pytest.mark.parametrize(
    "marker, kind",
    [
        ("# native", "native"),
        ("# allocates", "allocates"),
        ("# the last use of b", "runtime"),
        ("# raises", "raises"),
        ("# python", "python"),
    ],
)
def test_each_line_is_shaded_by_what_it_compiled_to(every_kind_page, marker, kind):
    line = every_kind_page.lines[line_of(every_kind, marker)]
    assert line.kind == kind
    assert f"k-{kind}" in line.classes


def test_lines_expand_to_their_typed_ir_and_optimized_llvm(every_kind_page):
    allocating = every_kind_page.lines[line_of(every_kind, "# allocates")]
    assert allocating.tag == "details"  # opens without JavaScript
    assert "typed IR" in allocating.text and "optimized LLVM" in allocating.text
    assert "b = " in allocating.text and ":: array(float64, 1d, C)" in allocating.text
    assert "call ptr @ember_nrt_allocate" in allocating.text
    raising = every_kind_page.lines[line_of(every_kind, "# raises")]
    assert "ptr %excinfo" in raising.text


def test_lines_without_code_are_not_shaded(every_kind_page):
    blank = every_kind_page.lines[line_of(every_kind, "def every_kind")]
    assert blank.kind in (None, "native", "runtime")  # the exits' clean-up is the def line's
    comment = every_kind_page.lines[line_of(every_kind, "# a comment: no code")]
    assert comment.kind is None and comment.tag == "div" and "k-" not in " ".join(comment.classes)


def test_the_body_of_objmode_blocks_runs_as_python(every_kind_page):
    inside = every_kind_page.lines[line_of(every_kind, "t = 1.0")]
    assert inside.kind == "python" and "runs as Python" in inside.text


def test_variable_types(every_kind_page):
    assert every_kind_page.variables == {
        "a": "array(float64, 1d, C)",
        "n": "int64",
        "b": "array(float64, 1d, C)",
        "first": "float64",
        "i": "int64",
        "t": "float64",
        "total": "float64",
    }


def test_loops_vectorized_or_not_from_llvm_remarks():
    vectorized = _page(doubled_into_jit, VECTOR, np.empty_like(VECTOR))
    line = line_of(doubled_into_jit.py_func, "# vectorizable")
    assert vectorized.lines[line].badges == ["loop: vectorized"]
    assert vectorized.loop_rows[line][0] == "yes"
    assert "vectorized loop (vectorization width:" in vectorized.loop_rows[line][1]

    recurrence = _page(decaying_sum_jit, VECTOR)
    line = line_of(decaying_sum, "# not vectorized")
    assert recurrence.lines[line].badges == ["loop: not vectorized"]
    assert recurrence.loop_rows[line][0] == "no"
    assert "could not be identified as reduction" in recurrence.loop_rows[line][1]

    ordered = _page(float_sum_jit, VECTOR)  # an in-order reduction: Python's sum, bit for bit
    line = line_of(float_sum, "# vectorized, adding in order")
    assert ordered.lines[line].badges == ["loop: vectorized"]
    assert float_sum_jit(VECTOR) == float_sum(VECTOR)

    reassociated = _page(fast_float_sum_jit, VECTOR)  # fastmath allows reordering the sum
    assert reassociated.lines[line].badges == ["loop: vectorized"]


def test_a_loop_in_library_code_is_shown_on_the_line_that_calls_it(every_kind_page):
    filled = every_kind_page.lines[line_of(every_kind, "b[:] = 1.0")]
    assert filled.badges == ["inner loop: vectorized"]
    row = every_kind_page.loop_rows[line_of(every_kind, "b[:] = 1.0")]
    assert row[0] == "yes" and row[1].startswith("a loop in the code this line calls")


def test_parallel_loops_say_whether_they_became_parfors():
    converted = _page(parallel_sum_jit, VECTOR)
    line = line_of(parallel_sum, "# a parfor")
    assert "parfor #" in converted.lines[line].badges[1]
    body = converted.lines[line + 1]  # compiled in the parfor's outlined body
    assert body.kind == "native" and "fadd" in body.text

    serial = _page(same_element_written_jit, VECTOR)
    line = line_of(same_element_written, "# stays serial")
    assert "stays serial" in serial.lines[line].badges[1]
    assert "does not hold the loop index" in serial.loop_rows[line][2]


def test_pretty_page_is_self_contained_and_shows_in_notebooks(every_kind_page):
    page = every_kind_jit.inspect_types(pretty=True)
    for document in (page.html, page._repr_html_()):
        assert "<script" not in document
        assert "http://" not in document and "https://" not in document
    assert page.html.startswith("<!DOCTYPE html>")
    fragment = page._repr_html_()
    assert fragment.startswith('<div class="ember-annotate">')
    style = fragment.split("<style>")[1].split("</style>")[0]
    rules = [rule.strip() for rule in style.split("}") if "{" in rule]
    for selectors in (rule.split("{")[0] for rule in rules):  # nothing outside the cell
        assert all(s.strip().startswith(".ember-annotate") for s in selectors.split(","))


def test_annotating_leaves_the_dispatcher_unchanged():
    float_sum_jit(VECTOR)
    before = dict(float_sum_jit.overloads)
    ember.annotate.annotate(float_sum_jit, (types.float64[::1],))
    assert float_sum_jit.overloads == before
    assert float_sum_jit(VECTOR) == pytest.approx(float_sum(VECTOR))


def test_a_signature_not_compiled_yet_is_compiled_for_the_page():
    page = ember.annotate.annotate(float_sum_jit, (types.float32[::1],))
    assert page.views[0].signature == "(array(float32, 1d, C)) -> float64"
    assert float_sum_jit(VECTOR.astype(np.float32)) == pytest.approx(
        float_sum(VECTOR.astype(np.float32)), rel=1e-6
    )


def test_errors_say_what_to_do():
    fresh = ember.njit(float_sum)
    with pytest.raises(ValueError, match="no compiled signature yet"):
        fresh.inspect_types(pretty=True)
    with pytest.raises(UnsupportedError, match="needs an @njit function"):
        ember.annotate.annotate(float_sum)


def test_object_mode_functions_have_no_page():
    def concatenated(values):
        return "".join(str(v) for v in values)

    forced = ember.jit(forceobj=True)(concatenated)
    assert forced([1, 2]) == concatenated([1, 2])
    with pytest.raises(UnsupportedError, match="runs in object mode"):
        forced.inspect_types(pretty=True)
