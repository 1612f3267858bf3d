"""The project index: the checked project beyond one file, its modules parsed on demand.

It implements :class:`checker.facts.module.ModuleIndex`, the questions the facts of one
module ask about the others; the facts never see it otherwise. Nothing is imported: an
import resolves to a file by path alone (:mod:`checker.reading.packages`). Parsed modules are
cached for the process, and a checked file that was parsed earlier as another file's
import is not parsed again; a module whose facts are being built is not entered again,
so import cycles end. Which modules each module's facts consulted is recorded, and
every file its imports looked for, there or not, so that the cache can tell when a
result depends on a file that changed, went away or appeared.
"""

from __future__ import annotations

import gc
import hashlib
from collections import OrderedDict
from collections.abc import Callable, Container, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import libcst as cst

from checker.facts.captures.changes import Change
from checker.facts.captures.helpers import Helper
from checker.facts.captures.places import seen_from
from checker.facts.kinds.annotations import Judgement
from checker.facts.kinds.classes import ClassModel
from checker.facts.kinds.kind import UNKNOWN, Inferred
from checker.facts.module import ModuleFacts
from checker.facts.registrations.handoffs import Origin
from checker.facts.registrations.targets import Body, Target
from checker.facts.scopes.tree import Binding, BindingKind
from checker.index.change_scan import ChangeScans, Scanned
from checker.index.change_walk import Below
from checker.index.dependencies import Dependencies
from checker.index.excerpts import Method, excerpt, without_method_bodies
from checker.index.installed_registrars import installed_registrar_names
from checker.index.left_out import LeftOut
from checker.index.outlines import Outline, Outlines, Stamp, file_stamp
from checker.index.pipeline import Parsed, parse
from checker.index.python_trees import PythonTrees
from checker.reading.discovery import DEFAULT_EXCLUDES
from checker.reading.environment import import_roots, is_installed
from checker.reading.exhaustive import exhaustive
from checker.reading.forms import names_registrar
from checker.reading.packages import candidates, looked_for, module_file, names_a_submodule, real_path
from checker.reading.source import PREFILTER, Unanalysable, decode, read_source
from checker.spec.links import Place, Registrar, Via
from checker.spec.torch_api import NOT_REGISTRARS, Marker
from checker.spec.well_known import WELL_KNOWN_REGISTRARS

T = TypeVar("T")

#: Parsed modules kept per process, the least recently used dropped first (each a few MB
#: of syntax tree); this bounds the memory of a run however large the tree.
_MAX_MODULES = 64
#: How many re-exports deep a registrar is followed past modules that never name the API.
_MAX_REEXPORTS = 8
#: Dropped modules are reference cycles, freed only by a full collection (see ``quiet_gc``),
#: which scans every live module too. Memory comes first: collecting every 64 drops instead
#: made four copies of diffusers 10% faster and their peak RSS 25% higher.
_COLLECT_EVERY = 16


class Project:
    """``registered_names``: the names of the functions the project registers, as far as
    the run's text scan found them; calls of an imported function are judged against a
    registration in its module only for these, which spares most modules an outline (for
    every name, under the exhaustive switch)."""

    def __init__(self, registered_names: frozenset[str] = frozenset()) -> None:
        self.registered_names: Container[str] = _EveryName() if exhaustive() else registered_names
        #: Registered names the text scan missed (aliases, wrappers) that the full tier found:
        #: a registration applies to them whatever the outline says (see :meth:`judge_calls_of`).
        self._found_registered: frozenset[str] = frozenset()
        self._told: dict[int, tuple[str, ...]] = {}
        self._facts: OrderedDict[Path, tuple[Stamp, ModuleFacts | None]] = OrderedDict()
        #: Installed modules parsed as an excerpt (:mod:`checker.index.excerpts`): the names it covers.
        self._covered: dict[Path, frozenset[str]] = {}
        #: Installed modules parsed for the method bodies of a class (their parse leaves them out).
        self._with_bodies: OrderedDict[tuple[Path, frozenset[tuple[str, str]]], tuple[Stamp, ModuleFacts | None]]
        self._with_bodies = OrderedDict()
        self._latest_bodies: dict[Path, tuple[Stamp, frozenset[tuple[str, str]]]] = {}
        self._dropped = 0
        self._building: set[Path] = set()
        self._following: set[tuple[str, str]] = set()
        self._candidates: dict[tuple[str, str], list[tuple[Path, str]]] = {}
        #: CPython's verdict on each module's text, one parse for its outline, imports and gate.
        self.trees = PythonTrees()
        self._outlines = Outlines(_MAX_MODULES * 4, self.trees)
        self._module_files: dict[tuple[str, str], str | None] = {}
        self._registered: dict[tuple[str, str], tuple[Path, str] | None] = {}
        #: (module, name) -> where a registrar it names may be bound, and the files on the way (stamped).
        self._homes: dict[tuple[Path, str], tuple[tuple[Path, str] | None, tuple[tuple[Path, Stamp | None], ...]]] = {}
        #: Imported names being asked whether they are registrars (:meth:`_no_registrar`), to end cycles.
        self._asking: set[tuple[Path, str]] = set()
        self._scans = ChangeScans(DEFAULT_EXCLUDES)
        self._deps = Dependencies()

    def judge_calls_of(self, names: tuple[str, ...]) -> None:
        """Judge the calls of ``names`` too: functions the project registers, as the pass after
        the first hands them on (the full tier found them registered, ``Links.registered``),
        which the text scan may have missed (``aig = allow_in_graph; aig(f)``, a wrapper's
        ``register(f)``). Told once per tuple (a run's files share a few, and a prefilter
        made for one file passes its run's tuple on)."""
        known = self.registered_names
        if id(names) in self._told or not isinstance(known, frozenset):  # (every name, exhaustively)
            return
        self._told[id(names)] = names  # (kept: its id stays its own)
        new = {name for name in names if name not in known}
        if new:
            self.registered_names = known | new
            self._found_registered |= new
            self._registered.clear()  # an answer given before may change

    def dependencies(self, path: str) -> dict[str, str]:
        """Every file the result of ``path`` depends on, directly or through the modules
        its facts consulted: path -> sha256 of its bytes, or ``ABSENT`` for a file an
        import looked for and did not find."""
        return self._deps.of(path)

    def parsed(self, path: str, digest: str) -> ModuleFacts | None:
        """The facts of ``path`` if it was already parsed with these bytes (as an import)
        and no module they consulted has changed since."""
        cached = self._facts.get(Path(self._deps.key(path)))
        facts = cached[1] if cached is not None else None
        if facts is None or facts.digest != digest or self._stale(self._deps.key(path)):
            return None
        return facts

    def _stale(self, key: str) -> bool:
        """Whether a module the facts of ``key`` consulted was edited since it was parsed."""
        for name in self._deps.consulted_through(key):
            cached = self._facts.get(Path(name))
            if cached is None or cached[0] != file_stamp(Path(name)):
                return True
        return False

    def lookup(self, importer: str, qualified: str, require_api: bool = True) -> tuple[ModuleFacts, str] | None:
        """The module (and the name in it) that an imported ``qualified`` name refers to.

        ``require_api``: only modules that mention the API (where registrars can be);
        values and base classes can come from any module of the package.
        """
        self._deps.look(importer, qualified)
        key = (str(Path(importer).parent), qualified)
        if key not in self._candidates:
            self._candidates[key] = candidates(Path(importer), qualified)
        for module_path, attribute in self._candidates[key]:
            names = self._imported_beside(importer, qualified, attribute)
            if require_api:
                home = self._home(importer, module_path, attribute)
                if home is None:
                    continue
                if home != (module_path, attribute):
                    names = frozenset({home[1]})
                module_path, attribute = home
            facts = self.facts(module_path, require_api, names=names)
            if facts is not None:
                self._deps.consulted(importer, self._deps.key(facts.path), facts.digest)
                return facts, attribute
        return None

    def _imported_beside(self, importer: str, qualified: str, attribute: str) -> frozenset[str]:
        """``attribute`` and the other names the importer's top-level imports take from the
        module ``qualified`` names it in (``from diffusers.models.attention import
        AttentionMixin, FeedForward``): an excerpt of an installed module made for all of
        them at once is not made again for each (an excerpt is a subset, so no answer changes)."""
        module = qualified.removesuffix(attribute)
        names = {name.removeprefix(module) for name in self._outlines.imports(Path(importer)).values()}
        return frozenset({attribute, *(name for name in names if name.isidentifier())})

    def _home(self, importer: str, path: Path, attribute: str) -> tuple[Path, str] | None:
        """Where ``attribute`` of ``path`` may be bound to a registrar (:meth:`_registrar_home`),
        asked once per name of a module while the files on the way are unchanged (every call a
        checked module makes of an imported function asks it); the files read on the way
        (re-exports, the modules of the names a def forwards to) are recorded for the cache
        as ``importer``'s."""
        key = (path, attribute)
        known = self._homes.get(key)
        if known is None or any(file_stamp(passed) != stamp for passed, stamp in known[1]):
            through: list[Path] = []
            read: list[Path] = []
            home = self._registrar_home(path, attribute, through, read)
            files = dict.fromkeys([path, *through, *read])  # (each once, in order)
            known = self._homes[key] = (home, tuple((passed, file_stamp(passed)) for passed in files))
        for passed, _ in known[1][1:]:
            name = self._deps.key(str(passed))
            self._deps.looked(importer, name, self._deps.digest(name))
        return known[0]

    def _registrar_home(
        self, path: Path, attribute: str, through: list[Path], read: list[Path]
    ) -> tuple[Path, str] | None:
        """Where ``attribute`` of ``path`` may be bound to a registrar, as CPython's trees say,
        before any libcst parse: there, if its code names the API and not only classes, or
        defs that forward their parameters to no registrar, bind it (:meth:`_forwards_to_none`);
        else where it re-exports the name from (``from .ops import register`` in a package's
        ``__init__.py`` that never names the API: the facts of ``ops`` say, the ``__init__.py``
        is not parsed), each module passed to added to ``through``, and every other file
        read on the way to ``read``. None where no registrar can be. (Under the exhaustive
        switch any module may be: its facts say.)"""
        if exhaustive():
            return path, attribute
        if self._outlines.mentions_api(path) and self._may_be_registrar(path, attribute):
            outline = self._outlines.of(path)
            if outline.registers and attribute not in outline.not_registrars:
                return None if self._forwards_to_none(path, outline, attribute, read) else (path, attribute)
        further = self._outlines.reexported(path, attribute)
        if further is None or len(through) >= _MAX_REEXPORTS or further[0] in (path, *through):
            return None
        through.append(further[0])
        return self._registrar_home(*further, through, read)

    def _forwards_to_none(self, path: Path, outline: Outline, attribute: str, read: list[Path]) -> bool:
        """Whether ``attribute`` of ``path`` passes what it is given only to imported names
        none of which is a registrar, as their modules' outlines say: a def that forwards a
        parameter to them alone (``maybe_mark_dynamic``, to ``is_traceable_wrapper_subclass``),
        or a name the module only imports (``from .decorators import maybe_mark_dynamic`` in
        torch/_dynamo/__init__.py, which names the API elsewhere). The files read go to ``read``."""
        names = outline.wrappers_unless.get(attribute)
        if names is None and attribute in outline.reexports:
            imported = self._outlines.imports(path).get(attribute)
            names = frozenset({imported}) if imported is not None else None
        return names is not None and all(self._no_registrar(path, name, read) for name in names)

    def _no_registrar(self, importer: Path, qualified: str, read: list[Path]) -> bool:
        """Whether ``qualified``, imported by ``importer``, is surely no registrar: as
        :meth:`registrar` would find, every module it may be in has no registrar home (no
        table entry, no name that spells the API). A question asked again further up is
        left to the facts (False), as is one asked too deep."""
        if qualified.startswith("builtins.") or qualified in NOT_REGISTRARS:
            return True
        if names_registrar(qualified.rpartition(".")[2]) or qualified in WELL_KNOWN_REGISTRARS:
            return False
        key = (importer, qualified)
        if key in self._asking or len(self._asking) >= _MAX_REEXPORTS:
            return False
        self._asking.add(key)
        try:
            read.extend(looked_for(importer, qualified))
            for module_path, attribute in candidates(importer, qualified):
                through: list[Path] = []
                home = self._registrar_home(module_path, attribute, through, read)
                read.extend([module_path, *through])
                if home is not None:
                    return False
            return True
        finally:
            self._asking.discard(key)

    def _may_be_registrar(self, path: Path, attribute: str) -> bool:
        """Whether ``attribute`` of ``path`` may be a registrar as the text tier reads an
        installed module (its own registrar names, or a name that spells the API): a
        package's module is parsed with libcst for it only then (``dispatch_attention_fn``,
        which forwards its parameters, is no wrapper of the API: diffusers'
        ``attention_dispatch.py`` is never parsed for it). A module of the project: its outline says."""
        if not self._excerpted(path):
            return True
        return names_registrar(attribute) or attribute in installed_registrar_names(path)

    def _excerpted(self, path: Path) -> bool:
        """Whether ``path`` is read for the names asked of it alone (:mod:`checker.index.excerpts`):
        a module of an installed package outside the checked paths, in a normal run."""
        if exhaustive() or not is_installed(path):
            return False
        real = real_path(path)
        return not any(real.is_relative_to(checked) for checked in import_roots().checked)

    def _vetted(self, key: Path, stamp: Stamp) -> bool:
        """Whether CPython's parser already found ``key``, as it is now, safe for libcst (an outline)."""
        return self._outlines.stamp(key) == stamp and self._outlines.of(key).safe

    # -- the questions of ModuleIndex --------------------------------------------

    def origin(self, importer: str, qualified: str) -> Origin | None:
        found = self._bound(importer, qualified)
        return None if found is None else Origin(found.facts.path, found.name, found.bindings)

    def kind(self, importer: str, qualified: str) -> Inferred | None:
        found = self.lookup(importer, qualified, require_api=False)
        return None if found is None else self.follow(*found, _kind_at_top_level)

    def registrar(self, importer: str, qualified: str) -> Registrar | None:
        found = self.lookup(importer, qualified)
        if found is None:
            return self._well_known(importer, qualified) or self._through_name(importer, qualified)
        facts, attribute = found
        registrar = self.follow(facts, attribute, _registrar_named)
        if registrar is None:
            return None
        return Registrar(registrar.spelled, registrar.via, registrar.index, attribute, Path(facts.path).name)

    def _through_name(self, importer: str, qualified: str) -> Registrar | None:
        """A registrar reached through a name another module binds, not a module of its own:
        ``tc.allow_in_graph`` after ``from pkg.decorated import tc``, where decorated.py has
        ``from torch import compiler as tc`` (``pkg.decorated.tc.allow_in_graph``; ``d.tc.x``
        after ``import pkg.decorated as d`` too). The rest of the name is read in that module,
        as it would be written there. Only for a name whose last part can name the API: any
        other attribute of an imported object (``CONFIG.get``) would cost its module a parse."""
        dots = len(qualified) - len(qualified.lstrip("."))
        parts = qualified[dots:].split(".")
        if len(parts) < 3 or not names_registrar(parts[-1]):
            return None
        for bound in range(len(parts) - 2, 0, -1):
            prefix = qualified[:dots] + ".".join(parts[: bound + 1])
            self._deps.look(importer, prefix)
            for module_path, name in candidates(Path(importer), prefix):
                facts = self.facts(module_path, require_api=False)
                if facts is None or name not in facts.tree.module.bindings:
                    continue
                self._deps.consulted(importer, self._deps.key(facts.path), facts.digest)
                rest = parts[bound + 1 :]
                registrar = self.follow(facts, ".".join([name, *rest]), _registrar_spelled)
                if registrar is not None:
                    return Registrar(registrar.spelled, registrar.via, registrar.index, rest[-1], Path(facts.path).name)
        return None

    def _well_known(self, importer: str, qualified: str) -> Registrar | None:
        """A well-known package's registration helper where no file of the package is there
        to read (:mod:`checker.spec.well_known`); never with installed packages off."""
        api = WELL_KNOWN_REGISTRARS.get(qualified)
        if api is None or not import_roots().enabled or self._candidates[(str(Path(importer).parent), qualified)]:
            return None
        module, _, alias = qualified.rpartition(".")
        return Registrar(api, Via.API, 0, alias, module.rpartition(".")[2] + ".py")

    def class_model(self, node: cst.ClassDef) -> ClassModel | None:
        owner = self.owner_of(node)
        return None if owner is None else owner.inference.class_model(node)

    def helpers(self, importer: str, qualified: str) -> list[Helper]:
        found = self._bound(importer, qualified)
        if found is None:
            return []  # not a module of the project (numpy, torch, a missing file)
        facts = found.facts
        return [
            Helper(Body(binding.definition, facts.tree.scope_of[binding.definition]), facts.capture_finder)
            for binding in found.bindings
            if binding.kind is BindingKind.FUNCTION and isinstance(binding.definition, cst.FunctionDef)
        ]

    def module_file(self, importer: str, qualified: str) -> str | None:
        self._deps.look(importer, qualified)
        key = (str(Path(importer).parent), qualified)
        if key not in self._module_files:
            found = module_file(Path(importer), qualified)
            self._module_files[key] = str(real_path(found)) if found is not None else None
        return self._module_files[key]

    def holds_value(self, module: str, name: str) -> bool:
        path = Path(module)
        if path.name == "__init__.py" and names_a_submodule(path, name):
            return False  # ``torch._C``: an extension module, not a value of torch/__init__.py
        if exhaustive():  # the module's facts say, not its outline
            facts = self.facts(path, require_api=False)
            return facts is not None and any(
                binding.kind in _VALUE_BINDINGS or binding.written_in is not facts.tree.module
                for binding in facts.tree.module.bindings.get(name, [])
            )
        return name in self._outlines.of(path).values

    def change(
        self,
        module: str,
        name: str,
        checked: str,
        *,
        own: bool,
        rebinding: bool,
        attributes: tuple[str, ...] | None = None,
        holding: bool = False,
    ) -> Change | None:
        below = None if attributes is None else Below(attributes, holding)
        return self._placed(self._scans.change(Path(module), name, own=own, rebinding=rebinding, below=below), checked)

    def environment(self, key: str, checked: str) -> Change | None:
        return self._placed(self._scans.environment(Path(checked), key), checked)

    def _placed(self, found: Scanned, checked: str) -> Change | None:
        """A change the scan found, placed as seen from ``checked``; its files recorded."""
        for path, digest in found.consulted:
            self._deps.consulted(checked, path, digest)
        if found.project is not None:  # for the cache only: parsed facts are not stale for it
            self._deps.looked(checked, *found.project)
        for where in found.beside:  # (the same: the checked paths beside the package)
            self._deps.looked(checked, *where)
        if found.where is None:
            return None
        path, evidence = found.where
        place = Place(seen_from(path, checked), evidence.line)
        return Change(
            evidence.kind,
            None,
            place,
            evidence.declaration,
            evidence.function,
            evidence.mutation,
            path=evidence.path,
            holds=evidence.holds,
        )

    def alias_members(self, importer: str, qualified: str, result: bool, inside: bool) -> list[Judgement] | None:
        self._deps.look(importer, qualified)
        where = self._outlines.defined_at(importer, qualified)
        if where is None or (not exhaustive() and where[1] not in self._outlines.of(where[0]).values):
            return None  # no assignment binds it there (CPython's outline says, no parse): no alias
        found = self._bound(importer, qualified)
        if found is None:
            return None
        facts = found.facts
        with facts.inference.following_imports():
            return facts.judge.alias_members(found.name, facts.tree.module, result, inside)

    def markers(self, module: str, name: str, checked: str) -> list[tuple[Marker, Place]]:
        self._deps.looked(checked, self._deps.key(module), self._deps.digest(self._deps.key(module)))
        facts = self.facts(Path(module), require_api=False, names=frozenset({name}))
        if facts is None:
            return []
        places = facts.capture_finder.places
        definitions = [b.definition for b in facts.tree.module.bindings.get(name, []) if b.definition is not None]
        return [
            (marker, places.place(node, checked))
            for definition in definitions
            for marker, node in facts.markers.of_definitions.get(definition, [])
        ]

    def registered_target(self, importer: str, qualified: str) -> Target | None:
        self._deps.look(importer, qualified)
        key = (importer, qualified)
        if key not in self._registered:
            self._registered[key] = self._registered_at(importer, qualified)
        where = self._registered[key]
        # The target is taken from the module's facts each time, never kept here: it would
        # keep them alive after the bounded cache of parsed modules let them go.
        return None if where is None else self._target_at(*where)

    def _registered_at(self, importer: str, qualified: str) -> tuple[Path, str] | None:
        """Where an imported name is defined, if a registration plausibly applies to it there
        (CPython's outline says; no libcst parse)."""
        where = self._outlines.defined_at(importer, qualified)
        if where is None:
            return None
        path, name = where
        if exhaustive() or name in self._found_registered:
            return where  # the module's facts say whether a registration applies
        if not self._outlines.mentions_api(path) or name not in self._outlines.of(path).registered:
            return None
        return where

    def _target_at(self, path: Path, name: str) -> Target | None:
        facts = self.facts(path, require_api=False, names=frozenset({name}))
        if facts is None:
            return None
        definitions = {b.definition for b in facts.tree.module.bindings.get(name, []) if b.kind is BindingKind.FUNCTION}
        return next((t for t in facts.honoured_targets if t.definition in definitions), None)

    # -- following imports ----------------------------------------------------------

    def _bound(self, importer: str, qualified: str) -> _Bound | None:
        """The module that binds an imported name itself, the name there and its top-level
        bindings: re-exports (``from .impl import f`` in ``__init__.py``) are followed on,
        and a cycle of them ends with None."""
        found = self.lookup(importer, qualified, require_api=False)
        return None if found is None else self.follow(*found, self._bound_in)

    def _bound_in(self, facts: ModuleFacts, name: str) -> _Bound | None:
        bindings = facts.tree.module.bindings.get(name, [])
        # ``f = allow_in_graph(f)`` after an import binds the same object (the registrar returns it)
        imports = [b for b in bindings if not _registers_itself(facts, b)] if len(bindings) > 1 else bindings
        if len(imports) == 1 and imports[0].kind is BindingKind.IMPORT and imports[0].imported:
            return self._bound(facts.path, imports[0].imported)
        if imports and all(b.kind is BindingKind.IMPORT and b.imported for b in imports):
            # ``from ._impl import f`` then ``from .called import f``, where called.py took ``f``
            # from this package: the import that leads back here is the same object, bound again.
            found = {(b.facts.path, b.name): b for b in self._imports_followed(facts, imports)}
            if len(found) == 1:
                return next(iter(found.values()))
        return _Bound(facts, name, tuple(bindings))

    def _imports_followed(self, facts: ModuleFacts, bindings: Sequence[Binding]) -> Iterator[_Bound]:
        """Where each import binding leads; one that cycles back here leads nowhere."""
        for binding in bindings:
            assert binding.imported is not None
            bound = self._bound(facts.path, binding.imported)
            if bound is not None:
                yield bound

    def follow(self, facts: ModuleFacts, attribute: str, step: Callable[[ModuleFacts, str], T]) -> T | None:
        """Ask ``step`` about ``attribute`` of ``facts`` unless that is already being asked
        further up: aliases that import each other in a cycle end with None."""
        key = (facts.path, attribute)
        if key in self._following:
            return None
        self._following.add(key)
        try:
            return step(facts, attribute)
        finally:
            self._following.discard(key)

    def remember(self, path: Path, facts: ModuleFacts, digest: str) -> None:
        """Keep a module the engine parsed anyway (``digest``: sha256 of its bytes), for the
        imports of the files after it."""
        key = real_path(path)
        stamp = file_stamp(key)
        if stamp is None:
            return  # stdin, or a file that went away
        facts.digest = digest
        self._deps.forget(str(key))
        self._covered.pop(key, None)  # (the whole module)
        self._keep(key, (stamp, facts))

    def owner_of(self, node: cst.CSTNode) -> ModuleFacts | None:
        """The parsed module a definition node belongs to."""
        for _, facts in (*self._facts.values(), *self._with_bodies.values()):
            if facts is not None and node in facts.tree.scope_of:
                return facts
        return None

    def facts(self, path: Path, require_api: bool = True, names: frozenset[str] | None = None) -> ModuleFacts | None:
        """The facts of the module at ``path``; ``names``: the only names the caller asks
        about (an installed module is then parsed as the excerpt they reach, widened when
        another name is asked later), else the whole module."""
        key = real_path(path)
        stamp = file_stamp(key)
        if key in self._building or stamp is None:
            return None
        cached = self._facts.get(key)
        if cached is not None and cached[1] is None and not require_api and cached[0] == stamp:
            cached = None  # skipped before for not mentioning the API; now any module will do
        covered = self._covered.get(key) if cached is not None else None
        if covered is not None and (names is None or not names <= covered):
            cached = None  # an excerpt that leaves out a name now asked
        if cached is None or cached[0] != stamp or self._stale(str(key)):  # a long-lived process must see edits
            self._building.add(key)
            self._deps.forget(str(key))
            covering = None if names is None or not self._excerpted(key) else (covered or frozenset()) | names
            self._covered.pop(key, None)
            try:
                cached = (stamp, self._parse(key, require_api, vetted=self._vetted(key, stamp), covering=covering))
            finally:
                self._building.discard(key)
        self._keep(key, cached)
        return cached[1]

    def _keep(self, key: Path, entry: tuple[Stamp, ModuleFacts | None]) -> None:
        self._facts[key] = entry
        self._facts.move_to_end(key)
        while len(self._facts) > _MAX_MODULES:
            self._facts.popitem(last=False)
            self._dropped += 1
            if self._dropped % _COLLECT_EVERY == 0:
                gc.collect()

    def _parse(
        self,
        path: Path,
        require_api: bool = True,
        vetted: bool = False,
        covering: frozenset[str] | None = None,
        bodies: frozenset[tuple[str, str]] | None = None,
    ) -> ModuleFacts | None:
        """The facts of the module at ``path``, as the engine would build them (one pipeline:
        :mod:`checker.index.pipeline`), or None when it cannot be read or analysed.
        ``vetted``: CPython's parser already found the file safe for libcst; ``covering``:
        the names an excerpt of the module is made for (None: all of it; an excerpt made is
        recorded as covering them), its classes' methods parsed without their bodies
        (:mod:`checker.index.left_out`); ``bodies``: all of it, the bodies of these (class,
        method) kept (the others left out)."""
        try:
            data = read_source(path)
            if data is None:
                return None  # over the analysis limit, as when it is checked
            if require_api and not exhaustive() and PREFILTER not in data:
                # A module that never mentions the API can neither be nor alias a registrar.
                return None
            decoded = decode(data)  # (bytes replaced only where CPython lets them be: its names hold)
            if isinstance(decoded, Unanalysable):
                return None
            text = decoded.text
            left_out: dict[str, dict[str, list[Method]]] = {}
            if covering is not None or bodies is not None:
                gate = self.trees.gate(text)  # (kept: a wider excerpt, or more bodies, may follow)
                if gate.refused is not None:
                    return None
                made = excerpt(text, gate.tree, covering) if gate.tree is not None and covering is not None else None
                vetted = vetted or gate.tree is not None  # (the gate is not passed again)
                if made is not None:  # (else all of it: newer syntax than CPython's, or most of it kept)
                    text = made
                    self._covered[path] = covering or frozenset()
                if gate.tree is not None:
                    keep = _body_words(path, data)
                    text, left_out = without_method_bodies(text, gate.tree, keep, bodies or frozenset())
            # The last to need the whole module's tree: taken, even when vetted, so that it is let
            # go before libcst parses; its imports, asked often later, are read from it first.
            if text in self.trees:
                self._outlines.imports(path)
                vetted = False
            parsed = parse(text, str(path), self, vetted=vetted, gate_of=self.trees.take)
            if left_out and isinstance(parsed, Parsed):
                parsed.facts.inference.left_out = LeftOut(
                    parsed.facts, left_out, lambda wanted: self._parsed_with_bodies(path, wanted)
                )
        except (OSError, RecursionError, SyntaxError):
            # (SyntaxError: a text CPython's parser rejects that its outline let through as
            # newer syntax, ``def f(:``, which libcst refuses too.)
            return None
        if not isinstance(parsed, Parsed):
            return None
        parsed.facts.digest = hashlib.sha256(data).hexdigest()
        return parsed.facts

    def _parsed_with_bodies(self, path: Path, wanted: frozenset[tuple[str, str]]) -> ModuleFacts | None:
        """The installed module at ``path`` with the bodies of the ``wanted`` (class, method)
        and of those wanted before (which its parse left out, :mod:`checker.index.left_out`),
        the others left out still; each parse kept apart, as its nodes stay in use."""
        stamp = file_stamp(path)
        if stamp is None:
            return None
        latest = self._latest_bodies.get(path)
        if latest is not None and latest[0] == stamp:
            wanted |= latest[1]
        entry = self._with_bodies.get((path, wanted))
        if entry is None or entry[0] != stamp:
            # Of the excerpt the module's facts are of, when they are of one: it holds the class,
            # and all that the class spells (its bodies too), so the bodies read the same there.
            covering = self._covered.get(path)
            entry = (stamp, self._parse(path, False, vetted=True, covering=covering, bodies=wanted))
            self._with_bodies[(path, wanted)] = entry
            self._latest_bodies[path] = (stamp, wanted)
            while len(self._with_bodies) > _MAX_MODULES:
                self._with_bodies.popitem(last=False)
        return entry[1]


#: Words a method body keeps itself for (:func:`without_method_bodies`): the module's own facts read
#: them in a body (a registration, a wrapper of the API, a marker, a name a function rebinds).
_BODY_WORDS = frozenset({"allow_in_graph", "aigcheck", "noqa", "global", "nonlocal"})


def _body_words(path: Path, data: bytes) -> frozenset[str]:
    """What keeps a method body of the installed module at ``path`` (bytes ``data``) in its parse."""
    return _BODY_WORDS | installed_registrar_names(path) if PREFILTER in data else _BODY_WORDS


#: Bindings that can hold data (not an import, a def or a class): what the outline's ``values`` reads.
_VALUE_BINDINGS = frozenset(
    {BindingKind.ASSIGN, BindingKind.ANNOTATION, BindingKind.AUGMENTED, BindingKind.LOOP, BindingKind.WITH}
)


class _EveryName(Container[str]):
    """Holds every name: the exhaustive switch's stand-in for the text scan's list."""

    def __contains__(self, name: object) -> bool:
        return True


@dataclass(frozen=True)
class _Bound:
    """Where an imported name is bound itself: the module's facts, the name, its bindings."""

    facts: ModuleFacts
    name: str
    bindings: tuple[Binding, ...]


def _registers_itself(facts: ModuleFacts, binding: Binding) -> bool:
    """``f = allow_in_graph(f)``: a rebinding to the same object, by a registrar."""
    call = binding.value
    return (
        binding.kind is BindingKind.ASSIGN
        and isinstance(call, cst.Call)
        and len(call.args) == 1
        and isinstance(call.args[0].value, cst.Name)
        and call.args[0].value.value == binding.name
        and facts.registrars.resolve(call.func, facts.tree.module) is not None
    )


def _kind_at_top_level(facts: ModuleFacts, attribute: str) -> Inferred:
    if attribute not in facts.tree.module.bindings:
        return UNKNOWN  # a submodule (``from pkg import utils``), not a builtin of that name
    inferred = facts.inference.infer_name(attribute, facts.tree.module)
    if not inferred.known:
        # A re-export (``from .attention_processor import Attention`` in attention.py):
        # follow it on; Project.follow ends import cycles.
        return facts.inference.imported_kind(attribute, facts.tree.module)
    return inferred


def _registrar_named(facts: ModuleFacts, attribute: str) -> Registrar | None:
    """The registrar a module binds to ``attribute`` at its top level, if any."""
    return facts.registrars.resolve(cst.Name(attribute), facts.tree.module)


def _registrar_spelled(facts: ModuleFacts, dotted: str) -> Registrar | None:
    """The registrar ``dotted`` (``tc.allow_in_graph``) is, read at the module's top level."""
    head, *rest = dotted.split(".")
    expr: cst.BaseExpression = cst.Name(head)
    for attribute in rest:
        expr = cst.Attribute(expr, cst.Name(attribute))
    return facts.registrars.resolve(expr, facts.tree.module)
