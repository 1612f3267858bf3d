"""Real models under the runtime guard: tiny transformers and diffusers models built from configs.

Each model is compiled three ways, each in a fresh process: ``inductor`` without the guard
(plain), ``backend="aigcheck"`` (the guard's backend, which hands the checked graph to
Inductor), and ``inductor`` under ``runtime_guard.install()`` in warn mode, installed before
transformers and diffusers are imported so that their own registrations
(``maybe_allow_in_graph`` on diffusers' blocks, transformers' ``can_record_outputs``) go
through the guard. One forward and one backward: outputs and parameter gradients must be
bitwise identical across the three; every violation is listed; compile time is the first
forward plus backward. No weights are downloaded: every model is built from a config with
``torch.manual_seed(0)``.

Compile time is the process's CPU time, measured with the FX graph and AOTAutograd caches off and a kernel cache
warmed by an untimed run (so the time is Dynamo + AOTAutograd + Inductor lowering, where the
guard works, as in ``runtime_guard_overhead.py``); the modes alternate, and the median of
``--rounds`` runs is kept.

Needs transformers and diffusers with their dependencies (not the project's): ``make
bench-models`` creates ``.venv-models`` and runs this. ``--write`` replaces the "Runtime
guard on real models" section of benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "RESULTS.md"
SECTION = "## Runtime guard on real models"
MODES = ("plain", "aigcheck", "warn")
MODELS = ("llama", "gpt2", "dit", "flux")


def _llama() -> tuple[Any, tuple[Any, ...]]:
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(
        vocab_size=256, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, max_position_embeddings=64, attn_implementation="sdpa",
    )  # fmt: skip
    return LlamaForCausalLM(config), (torch.randint(0, 256, (1, 16)),)


def _gpt2() -> tuple[Any, tuple[Any, ...]]:
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    config = GPT2Config(
        vocab_size=256, n_positions=64, n_embd=64, n_layer=2, n_head=4, resid_pdrop=0.0, embd_pdrop=0.0,
        attn_pdrop=0.0, attn_implementation="sdpa",
    )  # fmt: skip
    return GPT2LMHeadModel(config), (torch.randint(0, 256, (1, 16)),)


def _dit() -> tuple[Any, tuple[Any, ...]]:
    import torch
    from diffusers import DiTTransformer2DModel

    model = DiTTransformer2DModel(
        num_attention_heads=2, attention_head_dim=8, in_channels=4, out_channels=4, num_layers=2, sample_size=8,
        patch_size=2, num_embeds_ada_norm=10,
    )  # fmt: skip
    return model, (torch.randn(1, 4, 8, 8), torch.tensor([3]), torch.tensor([1]))


def _flux() -> tuple[Any, tuple[Any, ...]]:
    import torch
    from diffusers import FluxTransformer2DModel

    model = FluxTransformer2DModel(
        patch_size=1, in_channels=8, num_layers=1, num_single_layers=1, attention_head_dim=8,
        num_attention_heads=2, joint_attention_dim=16, pooled_projection_dim=16, axes_dims_rope=(2, 2, 4),
    )  # fmt: skip
    inputs = (
        torch.randn(1, 16, 8), torch.randn(1, 4, 16), torch.randn(1, 16), torch.tensor([0.5]),
        torch.zeros(16, 3), torch.zeros(4, 3),
    )  # fmt: skip
    return model, inputs


BUILDERS = {"llama": _llama, "gpt2": _gpt2, "dit": _dit, "flux": _flux}


def _first_tensor(out: Any) -> Any:
    import torch

    if isinstance(out, torch.Tensor):
        return out
    if isinstance(out, dict) or hasattr(out, "to_tuple"):
        out = out.to_tuple() if hasattr(out, "to_tuple") else tuple(out.values())
    return next(t for t in out if isinstance(t, torch.Tensor))


def child(model_name: str, mode: str, out_path: Path) -> None:
    """One compile of one model in this process; writes outputs, gradients, timing, violations."""
    import torch  # imported here: the parent never imports torch

    import runtime_guard as rg

    if mode == "warn":  # before transformers and diffusers register anything
        rg.set_strict("warn")
        rg.install()
    import torch._functorch.config
    import torch._inductor.config

    torch._inductor.config.fx_graph_cache = False
    torch._functorch.config.enable_autograd_cache = False
    from runtime_guard import backend as aig

    # One thread: with two, Inductor's CPU kernels differ run to run in the last bit even
    # without the guard (a q_proj gradient of llama off by 1.5e-8 between two plain runs),
    # and "identical" is meant bitwise.
    torch.set_num_threads(1)
    torch.manual_seed(0)
    model, inputs = BUILDERS[model_name]()
    model.train(False)
    compiled = torch.compile(model, backend="aigcheck" if mode == "aigcheck" else "inductor")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # CPU time of this process: compiling is single-threaded Python here
        # (TORCHINDUCTOR_COMPILE_THREADS=1) and the kernel cache is warm, so this is the
        # compile work itself, much less disturbed by other load on the machine than wall time.
        start = time.process_time()
        out = _first_tensor(compiled(*inputs))
        out.float().sum().backward()
        seconds = time.process_time() - start
    grads = {name: p.grad for name, p in model.named_parameters() if p.grad is not None}
    reports = aig.reports()
    torch.save({"out": out.detach(), "grads": grads}, out_path.with_suffix(".pt"))
    summary = {
        "seconds": seconds,
        "violations": [[v.code, v.function, v.detail] for v in rg.registry.violations()],
        "graphs": len(reports) if mode == "aigcheck" else None,
        "graph_breaks": sum(b.count for r in reports for b in r.graph_breaks) if mode == "aigcheck" else None,
        "registrations": len(rg.registry),
        "torch": torch.__version__,
    }
    out_path.write_text(json.dumps(summary))


def _run_child(model: str, mode: str, work: Path, cache: Path, index: int) -> dict[str, Any]:
    out = work / f"{model}-{mode}-{index}.json"
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "TORCHINDUCTOR_CACHE_DIR": str(cache),
        "TORCHINDUCTOR_COMPILE_THREADS": "1",
        "TORCHINDUCTOR_FX_GRAPH_CACHE": "0",
        "TORCHINDUCTOR_AUTOGRAD_CACHE": "0",
    }
    command = [sys.executable, str(Path(__file__).resolve()), "--child", model, mode, str(out)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        raise SystemExit(f"real_models: {model} [{mode}] failed:\n{done.stderr[-4000:]}")
    return {**json.loads(out.read_text()), "tensors": out.with_suffix(".pt")}


def _identical(a: Path, b: Path) -> bool:
    import torch

    x, y = torch.load(a), torch.load(b)
    return (
        torch.equal(x["out"], y["out"])
        and x["grads"].keys() == y["grads"].keys()
        and all(torch.equal(x["grads"][k], y["grads"][k]) for k in x["grads"])
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", nargs=3, metavar=("MODEL", "MODE", "OUT"), help=argparse.SUPPRESS)
    parser.add_argument("--models", nargs="*", default=list(MODELS), choices=MODELS)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--write", action="store_true")
    options = parser.parse_args()
    if options.child:
        model, mode, out = options.child
        child(model, mode, Path(out))
        return
    rows, violations = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for model in options.models:
            cache = work / f"cache-{model}"
            _run_child(model, "plain", work, cache, -1)  # untimed: warms the kernel cache
            runs: dict[str, list[dict[str, Any]]] = {mode: [] for mode in MODES}
            for index in range(options.rounds):
                for mode in MODES if index % 2 == 0 else reversed(MODES):
                    runs[mode].append(_run_child(model, mode, work, cache, index))
            same = all(_identical(runs["plain"][0]["tensors"], r["tensors"]) for m in MODES for r in runs[m])
            seconds = {mode: statistics.median(r["seconds"] for r in runs[mode]) for mode in MODES}
            rows.append((model, same, seconds, runs["aigcheck"][0]))
            violations[model] = {mode: runs[mode][0]["violations"] for mode in ("aigcheck", "warn")}
            print(f"{model}: identical={same} seconds={seconds}", flush=True)
    text = _section(rows, violations, options.rounds)
    print(text)
    (HERE / "real_models_violations.json").write_text(json.dumps(violations, indent=1) + "\n")
    if options.write:
        old = RESULTS.read_text() if RESULTS.exists() else "# Benchmark results\n"
        head, _, rest = old.partition(SECTION)
        tail = rest[rest.find("\n## ") :] if "\n## " in rest else ""
        RESULTS.write_text(head.rstrip() + "\n\n" + text + tail)


def _section(rows: list[tuple[str, bool, dict[str, float], dict[str, Any]]], violations: dict, rounds: int) -> str:
    torch_version = rows[0][3]["torch"] if rows else "?"
    lines = [
        SECTION,
        "",
        f"`benchmarks/real_models.py`, {datetime.date.today().isoformat()}, {platform.machine()}, {os.cpu_count()} CPUs,",
        f"Python {platform.python_version()}, torch {torch_version}; median of {rounds} fresh-process runs per mode,",
        "alternating; compile time is the CPU time of the first forward plus backward (FX graph and AOTAutograd",
        "caches off, kernel cache warm). Violations: `benchmarks/real_models_violations.json` (judged below).",
        "",
        "| model | outputs and gradients identical | inductor | aigcheck | install() warn + inductor | aigcheck overhead | graphs (aigcheck) | violations aigcheck / warn |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for model, same, seconds, aig_run in rows:
        extra = seconds["aigcheck"] / seconds["plain"] - 1
        found = violations[model]
        lines.append(
            f"| {model} | {'yes' if same else '**no**'} | {seconds['plain']:.2f} s | {seconds['aigcheck']:.2f} s | "
            f"{seconds['warn']:.2f} s | {extra:+.1%} | {aig_run['graphs']} | {len(found['aigcheck'])} / {len(found['warn'])} |"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
