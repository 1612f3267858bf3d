"""The command line: arguments, the run it drives, baselines, progress, Ctrl-C and stdout."""
