"""From the disk to text: discovery, reading and decoding files, libcst-ready text, positions, packages and the cheap mentions scan."""
