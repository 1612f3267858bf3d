"""One run's checking: the session, its two passes across modules, the cache, the worker pool and the engine that checks one file."""
