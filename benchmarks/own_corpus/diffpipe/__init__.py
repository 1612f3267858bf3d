"""A denoising pipeline: a scheduler, timestep embeddings and classifier-free guidance."""

from .pipeline import DenoisePipeline
from .schedulers import DDIMScheduler, EulerScheduler

__all__ = ["DDIMScheduler", "DenoisePipeline", "EulerScheduler"]
