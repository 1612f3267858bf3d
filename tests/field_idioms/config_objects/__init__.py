"""Options held in objects, after accelerate/diffusers-style state modules: a dataclass of
kernel options changed by ``configure(**kw)``, frozen defaults, a namespace the model setup
stores a module in, environment switches, and a class a patching module monkeypatches."""
