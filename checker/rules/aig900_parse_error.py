"""AIG900 parse-error."""

from __future__ import annotations

from collections.abc import Iterator

from checker.rules.base import Invalid, Rule, RuleFinding
from checker.spec.messages import NotAnalysed


class ParseError(Rule):
    """The file cannot be read, decoded or parsed, so it was not checked.

    ## What it does
    Reports a Python file that aigcheck could not analyse: it is unreadable (a
    permission error, a broken link) or not a regular file (a FIFO, a device, a
    socket: never opened), its bytes do not decode in the encoding it declares
    (PEP 263), it has a syntax error, it is too large (over 8 MiB) or too deeply
    nested, its analysis overran the per-file budget (60 s, 4 GiB of data), or
    libcst's native parser crashed on it twice. The message says which. The run goes
    on with the other files: from the command line, files are parsed in worker
    processes, so a crash or an overrun costs only that file's result.

    ## Why is this bad?
    A file that is not analysed can hide every other violation: a registration in it
    is neither found nor checked. Python itself would refuse most of these files. Where
    libcst reads valid Python differently from CPython, the file is still analysed: a
    form feed in indentation resets the column as CPython's tokenizer does, and an
    `and`/`or` chain of thousands of operands (which crashes libcst) or a run of thousands
    of implicitly concatenated strings (which it refuses) is replaced by a placeholder
    whose kind is unknown, so nothing inside it is judged and `--fix` leaves the file
    alone. Bytes that do not decode in a comment (CPython compiles those) are read as
    U+FFFD, and such a file is never rewritten. Only where libcst still refuses what
    CPython accepts is it AIG900, saying so.

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

    invalid = (
        Invalid(
            """
            import torch

            @torch.compiler.allow_in_graph
            def scale(x):
                return x ** * 2  # AIG900
            """,
            messages=(NotAnalysed("syntax error: invalid syntax"),),
        ),
    )

    def check(self, facts: object) -> Iterator[RuleFinding]:
        # The engine reports AIG900 itself, before any facts exist.
        return iter(())
