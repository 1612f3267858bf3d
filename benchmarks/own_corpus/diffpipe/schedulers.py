"""Schedulers: the noise schedule as tensors, one update step each."""

import torch


def _betas(num_train_steps: int, start: float = 1e-4, end: float = 2e-2) -> torch.Tensor:
    return torch.linspace(start, end, num_train_steps)


@torch.compiler.allow_in_graph
def ddim_update(sample, eps, alpha_t, alpha_prev):
    x0 = (sample - (1 - alpha_t).sqrt() * eps) / alpha_t.sqrt()
    return alpha_prev.sqrt() * x0 + (1 - alpha_prev).sqrt() * eps


@torch.compiler.allow_in_graph
def karras_sigmas(sigma_min, sigma_max, ramp, rho: float = 7.0):
    lo, hi = sigma_min ** (1 / rho), sigma_max ** (1 / rho)
    return (hi + ramp * (lo - hi)) ** rho


class DDIMScheduler:
    def __init__(self, num_train_steps: int = 1000):
        self.num_train_steps = num_train_steps
        self.alphas_cumprod = torch.cumprod(1.0 - _betas(num_train_steps), dim=0)
        self.timesteps = torch.arange(num_train_steps - 1, -1, -1)

    def set_timesteps(self, num_inference_steps: int):
        stride = self.num_train_steps // num_inference_steps
        self.timesteps = torch.arange(0, self.num_train_steps, stride).flip(0)

    def step(self, eps, t: int, prev_t: int, sample):
        alpha_prev = self.alphas_cumprod[prev_t] if prev_t >= 0 else torch.ones(())
        return ddim_update(sample, eps, self.alphas_cumprod[t], alpha_prev)


class EulerScheduler:
    """Keeps its update as a registered bound method, as some samplers do to stay one node."""

    def __init__(self, num_train_steps: int = 1000):
        self.sigmas = ((1 - torch.cumprod(1.0 - _betas(num_train_steps), 0)) / 0.5).sqrt()
        self.order = 1
        self._update = torch.compiler.allow_in_graph(self._euler_update)

    def set_order(self, order: int):
        self.order = order

    def _euler_update(self, sample, eps, index: int):
        sigma = self.sigmas[index]  # AIG301
        if self.order == 1:  # AIG302
            return sample + eps * sigma
        return sample + 0.5 * eps * sigma

    def step(self, sample, eps, index: int):
        return self._update(sample, eps, index)


def make_eta_step(eta: float):
    """A DDIM step with stochasticity ``eta`` fixed by the factory."""

    @torch.compiler.allow_in_graph  # AIG401
    def step(sample, eps, noise):
        return sample + eta * noise + (1 - eta) * eps

    return step
