"""Timestep embeddings and guidance, registered so the UNet's graph keeps them as single nodes."""

import math

import torch
import torch._dynamo


@torch.compiler.allow_in_graph
def timestep_embedding(timesteps, dim: int, max_period: int = 10000):
    half = dim // 2
    exponent = -math.log(max_period) * torch.arange(half, dtype=torch.float32, device=timesteps.device) / half
    args = timesteps[:, None].float() * torch.exp(exponent)[None]
    return torch.cat([torch.cos(args), torch.sin(args)], dim=-1)


@torch.compiler.allow_in_graph
def patchify(x, patch: int):
    b, c, h, w = x.shape
    x = x.reshape(b, c, h // patch, patch, w // patch, patch)
    return x.permute(0, 2, 4, 1, 3, 5).reshape(b, (h // patch) * (w // patch), c * patch * patch)


@torch.compiler.allow_in_graph
def unpatchify(x, patch: int, h: int, w: int):
    b, n, d = x.shape
    c = d // (patch * patch)
    x = x.reshape(b, h // patch, w // patch, c, patch, patch)
    return x.permute(0, 3, 1, 4, 2, 5).reshape(b, c, h, w)


@torch.compiler.allow_in_graph
def apply_guidance(noise_uncond, noise_text, scale: float):
    return noise_uncond + scale * (noise_text - noise_uncond)


def rescale_guided(noise_cfg, noise_text, guidance_rescale: float = 0.0):
    """Rescale guided noise towards the text branch's spread (reduces over-exposure)."""
    std_text = noise_text.std(dim=list(range(1, noise_text.ndim)), keepdim=True)
    std_cfg = noise_cfg.std(dim=list(range(1, noise_cfg.ndim)), keepdim=True)
    rescaled = noise_cfg * (std_text / std_cfg)
    return guidance_rescale * rescaled + (1 - guidance_rescale) * noise_cfg


torch._dynamo.allow_in_graph(rescale_guided)  # AIG407


@torch.compiler.allow_in_graph
def guidance_stats(noise_uncond, noise_text) -> dict:  # AIG201
    delta = noise_text - noise_uncond
    return {"mean": delta.mean(), "std": delta.std()}  # AIG201
