"""What the checker checks against, and the plain data the layers hand each other: the code table, the contract, torch's API tables, findings and links."""
