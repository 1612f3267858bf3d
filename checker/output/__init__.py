"""What a run writes: reporters, ``# noqa``, fingerprints, fixes, atomic writes, diff headers and the rule documentation."""
