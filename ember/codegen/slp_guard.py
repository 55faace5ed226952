"""Spots straight-line (SLP) vectorization at a loss in an optimized module: consumes the module,
produces a yes/no for optimizing it again without SLP (ember/codegen/library.py).

A loop counting two things at once (`fields += 1` and `lines += c == 10` on a separator) has
them packed into one vector register, the counts a loop-carried `<2 x i64>` phi to which each
iteration adds a vector built lane by lane (`insertelement`): the move into a vector register
and back lengthens the chain, and a byte scan counting fields and lines ran 1.09x Numba's time
with it, 0.99x without.

A loop keeping both a running minimum and a running maximum (`lo = min(lo, x)`,
`hi = max(hi, x)`) has no vectorizable recurrence, so the loop vectorizer leaves it; the SLP
vectorizer then packs the `<` and `>` compares of the min and max lanes into one vector compare
with alternating predicates, blended through a shuffle of the two masks. On AVX-512 each blend
moves the masks to vector registers and back, on the loop-carried chain: 4-5x slower than the
independent scalar minsd/maxsd chains (Numba does not run SLP at all).
"""

from __future__ import annotations

import re

_INTEGER_VECTOR_PHI = re.compile(r"(%[\w.$-]+) = phi <\d+ x i\d+> ")
_BUILT_LANE_BY_LANE = re.compile(r"(%[\w.$-]+) = insertelement <\d+ x i\d+> ")
_VECTOR_ADD = re.compile(r"= add (?:nuw |nsw )*<\d+ x i\d+> (%[\w.$-]+), (%[\w.$-]+)")
# A shuffle of compare masks (SLP's alternate predicates) whose result chooses a select's lanes.
_MASK_SHUFFLE = re.compile(r"(%[\w.$-]+) = shufflevector <\d+ x i1> ")


def selects_alternate_compares(module) -> bool:
    """True when a vector `select` of `module` takes its lanes from a shuffle of two compare
    masks: min and max (or other compares) packed together by the SLP vectorizer."""
    text = str(module)
    if "x i1> " not in text or "shufflevector <" not in text:
        return False
    for match in _MASK_SHUFFLE.finditer(text):
        if re.search(rf"select <\d+ x i1> {re.escape(match.group(1))},", text):
            return True
    return False


def packs_loop_counters(module) -> bool:
    """True when an add of `module` adds to a vector phi of integers (a loop-carried value) a
    vector built by `insertelement`: scalar counters of one loop packed by the SLP vectorizer.
    (The loop vectorizer's own reductions add whole vectors: loads, compares widened.)"""
    text = str(module)
    if "insertelement <" not in text or "phi <" not in text:
        return False
    phis = set(_INTEGER_VECTOR_PHI.findall(text))
    built = set(_BUILT_LANE_BY_LANE.findall(text))
    return any(
        (left in phis and right in built) or (right in phis and left in built)
        for left, right in _VECTOR_ADD.findall(text)
    )
