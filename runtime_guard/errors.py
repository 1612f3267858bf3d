"""What a violation of the allow_in_graph contract looks like when the guard finds one.

A :class:`Violation` is plain frozen data: the static rule code (``AIG301``...), the
function, where it was registered, and a self-contained message. The registry keeps
every violation; the reporting policy (see :mod:`runtime_guard.modes`) turns it into a
:class:`ContractViolation` (raise) or a :class:`ContractWarning` (warn).

Messages stand alone (a compile that fails in warn mode, and torch's own logs, keep only
their text): they start with the API name and carry the function, the registration site,
the clause, the offending value and the fix. In raise mode :mod:`runtime_guard.surfacing`
makes a violation found while Dynamo traces reach the user as itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from checker.spec.catalog import BY_CODE


@dataclass(frozen=True)
class Violation:
    """One broken clause of the contract, found at run time.

    ``function`` is the qualified name of the registered callable, ``site`` its
    registration site (``path:line``), ``detail`` what was found and how to fix it.
    """

    code: str
    function: str
    site: str
    detail: str

    @property
    def name(self) -> str:
        return BY_CODE[self.code].name

    @property
    def message(self) -> str:
        return f"allow_in_graph({self.function}) registered at {self.site}: {self.code} {self.name}: {self.detail}"


class _Reported:
    """The attributes shared by :class:`ContractViolation` and :class:`ContractWarning`."""

    code: str
    function: str
    site: str
    detail: str
    violation: Violation

    def _fill(self, violation: Violation) -> None:
        self.violation = violation
        self.code = violation.code
        self.function = violation.function
        self.site = violation.site
        self.detail = violation.detail


class ContractViolation(_Reported, Exception):
    """Raised in ``raise`` mode. ``.code`` is the static AIG code; ``.function``, ``.site``
    and ``.detail`` say which registration broke which clause and how to fix it.

    ``torch_error`` is torch's own message where torch failed on the same mistake (a
    captured tensor meeting fake tensors): the guard's message comes first, torch's is
    kept after it (Dynamo keeps only the text of an exception raised while it traces).
    """

    def __init__(self, violation: Violation, torch_error: str | None = None) -> None:
        message = (
            violation.message if torch_error is None else f"{violation.message} (torch's own error: {torch_error})"
        )
        super().__init__(message)
        self._fill(violation)
        self.torch_error = torch_error

    def __reduce__(self) -> tuple[type[ContractViolation], tuple[Violation, str | None]]:
        # Exceptions pickle their args by default; ours is built from the Violation.
        return (type(self), (self.violation, self.torch_error))


class ContractWarning(_Reported, UserWarning):
    """Emitted in ``warn`` mode, with the same attributes as :class:`ContractViolation`.

    Its ``args`` are the violation's four fields, plain strings, so that a warning rebuilt
    from them is the same warning: pytest-xdist sends a worker's warnings to the controller
    as their class and ``args`` and calls ``ContractWarning(*args)`` there.
    """

    def __init__(self, violation: Violation | str, *fields: str) -> None:
        if not isinstance(violation, Violation):
            violation = Violation(violation, *fields)
        super().__init__(violation.code, violation.function, violation.site, violation.detail)
        self._fill(violation)

    def __str__(self) -> str:
        return self.violation.message

    def __reduce__(self) -> tuple[type[ContractWarning], tuple[Violation]]:
        return (type(self), (self.violation,))
