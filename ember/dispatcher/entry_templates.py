"""IR text of a native entry link (native_entry.build_entry_module), reused across links of the
same shape: consumes a link's specializations and the objects and addresses it embeds, produces
its IR text, generated once per shape with stand-ins that are then swapped for each link's own.

Building the IR with llvmlite and printing it is about half of a link's cost; functions taking
the same argument kinds (two ints, one float64 array...) get the same code but for a few
addresses, so a second function of a known shape skips it.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

from ember.dispatcher import native_entry
from ember.dispatcher.object_layout import (
    ArrayKind,
    DtypeObject,
    ExactScalarKind,
    OptionalKind,
    SetKind,
)

# Shapes kept (each a few kilobytes of text); beyond it the least recently used goes.
TEMPLATE_LIMIT = 256
_templates: OrderedDict = OrderedDict()


class _Template:
    """A link's IR text with stand-in objects where the link's own objects and addresses go.

    Each stand-in is a live object of its own, so its address (`id`) appears in the text only
    where the stand-in was embedded: no other object, type or function has that address.
    """

    def __init__(self, shape: tuple, build: Callable[..., tuple]) -> None:
        kinds, default_count, boxer_kinds, release_gil, chained = shape
        self.fallback = object()
        self.defaults = [object() for _ in range(default_count)]
        self.boxers = {kind: object() for kind in boxer_kinds}
        self.targets = [object() for _ in kinds]
        self.next_entry = object() if chained else None
        self.keyword_cell = object()
        specializations = [
            (list(arg_kinds), ret_kind, id(target))
            for (arg_kinds, ret_kind), target in zip(kinds, self.targets, strict=True)
        ]
        module, self.symbol = build(
            "template",
            specializations,
            self.fallback,
            defaults=self.defaults,
            release_gil=release_gil,
            array_boxers=self.boxers,
            next_entry=id(self.next_entry) if chained else None,
            keyword_cell=id(self.keyword_cell),
        )
        self.text = str(module)
        numbers = "|".join(str(id(stand_in)) for stand_in in self._stand_ins())
        self.pattern = re.compile(rf"(?<!\w)(?:{numbers})(?!\w)")  # whole numbers only

    def _stand_ins(self) -> list:
        found = [self.fallback, *self.defaults, *self.boxers.values(), *self.targets]
        found.append(self.keyword_cell)
        return found if self.next_entry is None else [*found, self.next_entry]

    def fill(
        self,
        name: str,
        targets: Sequence[int],
        fallback: object,
        defaults: Sequence[object],
        boxers: dict,
        next_entry: int | None,
        keyword_cell: int,
    ) -> tuple[str, str]:
        """The text of a link with these objects and addresses, and its entry's symbol."""
        own = {id(self.fallback): id(fallback), id(self.keyword_cell): keyword_cell}
        own.update({id(s): id(d) for s, d in zip(self.defaults, defaults, strict=True)})
        own.update({id(s): id(boxers[kind]) for kind, s in self.boxers.items()})
        own.update({id(s): address for s, address in zip(self.targets, targets, strict=True)})
        if self.next_entry is not None:
            own[id(self.next_entry)] = next_entry
        swaps = {str(stand_in): str(value) for stand_in, value in own.items()}
        text = self.pattern.sub(lambda match: swaps[match.group(0)], self.text)
        symbol = native_entry.unique_entry_symbol(name)
        return text.replace(f'"{self.symbol}"', f'"{symbol}"'), symbol


def link_text(
    name: str,
    specializations: Sequence[tuple],
    fallback: object,
    build: Callable[..., tuple],
    *,
    defaults: Sequence[object],
    release_gil: bool,
    array_boxers: dict,
    next_entry: int | None,
    keyword_cell: int,
) -> tuple[str, str]:
    """IR text and entry symbol of a link: `build(name, specializations, fallback, **options)`
    makes its module (native_entry.build_entry_module with the rest bound), once per shape
    when its kinds compare by value."""
    kinds = tuple((tuple(arg_kinds), ret_kind) for arg_kinds, ret_kind, _ in specializations)
    if not all(_by_value(kind) for pair in kinds for kind in (*pair[0], pair[1])):
        module, symbol = build(
            name,
            specializations,
            fallback,
            defaults=defaults,
            release_gil=release_gil,
            array_boxers=array_boxers,
            next_entry=next_entry,
            keyword_cell=keyword_cell,
        )
        return str(module), symbol
    shape = (kinds, len(defaults), tuple(array_boxers), release_gil, next_entry is not None)
    template = _templates.get(shape)
    if template is None:
        template = _templates[shape] = _Template(shape, build)
        if len(_templates) > TEMPLATE_LIMIT:
            _templates.popitem(last=False)
    else:
        _templates.move_to_end(shape)
    targets = [target for _, _, target in specializations]
    return template.fill(name, targets, fallback, defaults, array_boxers, next_entry, keyword_cell)


def _by_value(kind: Any) -> bool:
    """Whether equal kinds mean the same code: not so for kinds naming one object (a jitted
    function, a jitclass), which compare by identity and would only fill the cache."""
    if isinstance(kind, tuple):
        return all(_by_value(member) for member in kind)
    if isinstance(kind, SetKind):
        return _by_value(kind.item)
    if isinstance(kind, ArrayKind):  # a record dtype object is embedded, not a stand-in
        return not isinstance(kind.dtype, DtypeObject)
    return isinstance(kind, (str, OptionalKind, ExactScalarKind))
