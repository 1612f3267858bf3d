"""The project index: what each module exports, and the cheap scans that say which files may matter."""
