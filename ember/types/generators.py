"""Generator types: the value a jitted generator function returns, iterated by `for` in compiled
code and boxed as an iterator for Python."""

from __future__ import annotations

from typing import Any

from ember.types.abstract import Type


class Generator(Type):
    """The generator made by calling `gen_func` with `arg_types`; it yields `yield_type` and
    ends with `return_type` (the value of its `return v`: StopIteration.value, and the value
    of `yield from` it; None when the body returns nothing).

    Its value is a runtime block holding the suspended frame (ember/lowering/generators.py).
    """

    def __init__(
        self,
        gen_func: Any,
        arg_types: tuple,
        yield_type: Type,
        state_types: Any = None,
        has_finalizer: bool = True,
        return_type: Type | None = None,
    ) -> None:
        from ember.types.scalars import none

        # state_types, has_finalizer: Numba's spelling of this type takes them; ember's frame
        # layout comes from the generator function itself, so they are not kept
        self.gen_func = gen_func
        self.arg_types = tuple(arg_types)
        self.yield_type = yield_type
        self.return_type = none if return_type is None else return_type
        args = ", ".join(str(t) for t in self.arg_types)
        name = getattr(gen_func, "__qualname__", repr(gen_func))
        ends = "" if self.return_type is none else f", returns {self.return_type}"
        super().__init__(f"generator({name}({args}) -> {yield_type}{ends})")

    @property
    def key(self) -> Any:
        return (self.gen_func, self.arg_types, self.yield_type, self.return_type)

    @property
    def iterator_type(self) -> Generator:
        return self

    def _rebuild_args(self) -> tuple:
        return (self.gen_func, self.arg_types, self.yield_type, None, True, self.return_type)
