"""What a run is asked to do: the options, the configuration files, the rule selection, and the ``Settings`` built from them."""
