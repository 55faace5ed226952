"""DWARF line tables for compiled functions (`debug=True`, `EMBER_DEBUGINFO=1`).

Consumes the LLVM functions lowering emits and the `Loc` of each IR statement; produces a
DICompileUnit per module, a DISubprogram per function and a DILocation per statement, so gdb,
`perf annotate` and the annotated HTML view (ember/annotate/) map machine code to Python lines.
"""

from __future__ import annotations

import os

from llvmlite import ir as llvm

from ember.ir.nodes import Loc

_DWARF_VERSION = 4
_DEBUG_INFO_VERSION = 3  # the metadata format LLVM reads (llvm::DEBUG_METADATA_VERSION)
_MODULE_FLAG_WARNING = 2  # merge behaviour when linked modules disagree


class DebugInfo:
    """The debug metadata of one LLVM module, built on first need."""

    def __init__(self, module: llvm.Module, filename: str) -> None:
        self.module = module
        self.filename = filename
        self._files: dict[str, llvm.DIValue] = {}
        self._subprograms: dict[str, llvm.DIValue] = {}
        self._scopes: dict[tuple[int, str], llvm.DIValue] = {}
        self._locations: dict[tuple, llvm.DIValue] = {}
        self.unit = module.add_debug_info(
            "DICompileUnit",
            {
                "language": llvm.DIToken("DW_LANG_Python"),
                "file": self.file(filename),
                "producer": "ember",
                "runtimeVersion": 0,
                "isOptimized": True,
                "emissionKind": llvm.DIToken("FullDebug"),
            },
            is_distinct=True,
        )
        module.add_named_metadata("llvm.dbg.cu", self.unit)
        for name, value in (
            ("Dwarf Version", _DWARF_VERSION),
            ("Debug Info Version", _DEBUG_INFO_VERSION),
        ):
            flag = [llvm.Constant(llvm.IntType(32), _MODULE_FLAG_WARNING), name]
            module.add_named_metadata("llvm.module.flags", [*flag, _i32(value)])

    def file(self, filename: str) -> llvm.DIValue:
        found = self._files.get(filename)
        if found is None:
            # the whole path as the name: line tables then name the file without the
            # compile unit's directory (perf's jitdump records need it whole)
            path = os.path.abspath(filename)
            found = self.module.add_debug_info(
                "DIFile", {"filename": path, "directory": os.path.dirname(path)}
            )
            self._files[filename] = found
        return found

    def subprogram(self, function: llvm.Function, qualname: str, line: int) -> llvm.DIValue:
        """The DISubprogram of `function` (attached to it as `!dbg`), made once."""
        found = self._subprograms.get(function.name)
        if found is None:
            signature = self.module.add_debug_info("DISubroutineType", {"types": self._no_types})
            found = self.module.add_debug_info(
                "DISubprogram",
                {
                    "name": qualname,
                    "linkageName": function.name,
                    "scope": self.file(self.filename),
                    "file": self.file(self.filename),
                    "line": line,
                    "type": signature,
                    "isLocal": False,
                    "isDefinition": True,
                    "scopeLine": line,
                    "isOptimized": True,
                    "unit": self.unit,
                },
                is_distinct=True,
            )
            function.set_metadata("dbg", found)
            self._subprograms[function.name] = found
        return found

    @property
    def _no_types(self) -> llvm.MDValue:
        return self.module.add_metadata([None])

    def location(self, subprogram: llvm.DIValue, loc: Loc) -> llvm.DIValue:
        """A DILocation for `loc` in `subprogram` (statements inlined from another file get a
        DILexicalBlockFile scope naming that file)."""
        key = (id(subprogram), loc.filename, loc.line, loc.col or 0)
        found = self._locations.get(key)
        if found is None:
            scope = self._scope(subprogram, loc.filename)
            found = self.module.add_debug_info(
                "DILocation", {"line": loc.line, "column": loc.col or 0, "scope": scope}
            )
            self._locations[key] = found
        return found

    def _scope(self, subprogram: llvm.DIValue, filename: str) -> llvm.DIValue:
        if filename == self.filename:
            return subprogram
        key = (id(subprogram), filename)
        found = self._scopes.get(key)
        if found is None:
            found = self.module.add_debug_info(
                "DILexicalBlockFile",
                {"scope": subprogram, "file": self.file(filename), "discriminator": 0},
            )
            self._scopes[key] = found
        return found


def _i32(value: int) -> llvm.Constant:
    return llvm.Constant(llvm.IntType(32), value)


class StatementLocations:
    """Sets the builder's debug location before each statement is lowered: every instruction
    the statement emits (in whichever function the builder is in) carries its line."""

    def __init__(self, module: llvm.Module, func_ir) -> None:
        self.func_ir = func_ir
        self.info = DebugInfo(module, func_ir.loc.filename)

    def before(self, builder: llvm.IRBuilder, loc: Loc) -> None:
        function = builder.function
        subprogram = self.info.subprogram(function, self.func_ir.qualname, self.func_ir.loc.line)
        builder.debug_metadata = self.info.location(subprogram, loc)
