"""Registration helpers of well-known packages, for a run whose environment lacks them.

Each was read from the package's own source (never imported), and is named by the dotted
path it is imported by, with the API it binds. Where the package is installed, its source
is read instead (:mod:`checker.reading.environment`) and this table is not consulted.
"""

from __future__ import annotations

#: dotted import path -> the registration API it is (a name of ``torch_api.REGISTRATION_APIS``).
WELL_KNOWN_REGISTRARS: dict[str, str] = {
    # diffusers/utils/torch_utils.py (0.25 through 0.42.1): ``try: from torch._dynamo import
    # allow_in_graph as maybe_allow_in_graph``, else an identity function when torch has no
    # Dynamo; every diffusers model module imports it from there. transformers has none.
    "diffusers.utils.torch_utils.maybe_allow_in_graph": "torch._dynamo.allow_in_graph",
}
