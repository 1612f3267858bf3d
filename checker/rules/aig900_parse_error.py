"""AIG900 parse-error."""

from __future__ import annotations

from collections.abc import Iterator

from checker.rules.base import Report, Rule


class ParseError(Rule):
    """The file cannot be read, decoded or parsed, so it was not checked.

    ## What it does
    Reports a Python file that aigcheck could not analyse: it is unreadable (a
    permission error, a broken link), its bytes do not decode in the encoding it
    declares (PEP 263), it has a syntax error, or it is too large or too deeply
    nested to analyse. The run goes on with the other files.

    ## Why is this bad?
    A file that is not analysed can hide every other violation: a registration in it
    is neither found nor checked. Python itself would refuse most of these files.

    ## Example
    ```python
    import torch

    @torch.compiler.allow_in_graph
    def scale(x):
        return x *   # AIG900
    ```

    ## Use instead
    ```python
    import torch

    @torch.compiler.allow_in_graph
    def scale(x):
        return x * 2
    ```
    """

    code = "AIG900"
    summary = "The file cannot be read or parsed; the run goes on."

    def check(self, facts: object) -> Iterator[Report]:
        # The engine reports AIG900 itself, before any facts exist.
        return iter(())
