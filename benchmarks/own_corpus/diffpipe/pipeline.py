"""The denoising loop."""

import functools
import logging

import torch

from .embeddings import apply_guidance, timestep_embedding
from .schedulers import DDIMScheduler, make_eta_step

logger = logging.getLogger(__name__)


class DenoisePipeline:
    def __init__(self, unet, scheduler=None, guidance_scale: float = 7.5):
        self.unet = unet
        self.scheduler = scheduler or DDIMScheduler()
        self.guide = torch.compiler.allow_in_graph(functools.partial(apply_guidance, scale=guidance_scale))  # AIG402
        self.noisy_step = make_eta_step(0.0)

    def __call__(self, latents, text_embeddings, num_inference_steps: int = 50):
        self.scheduler.set_timesteps(num_inference_steps)
        timesteps = self.scheduler.timesteps
        for i, t in enumerate(timesteps):
            prev_t = int(timesteps[i + 1]) if i + 1 < len(timesteps) else -1
            emb = timestep_embedding(t.reshape(1), 320)
            uncond, text = self.unet(torch.cat([latents] * 2), emb, text_embeddings).chunk(2)
            latents = self.scheduler.step(self.guide(uncond, text), int(t), prev_t, latents)
        logger.info("denoised in %d steps", len(timesteps))
        return latents


@torch.compiler.allow_in_graph
def log_latents(latents):
    logger.info("latents: mean %.3f", latents.mean())  # AIG501
    return latents
