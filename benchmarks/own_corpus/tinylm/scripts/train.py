"""Train the tiny model on random tokens, with the math attention path for determinism."""

import torch
from tinylm import TinyLM, config
from tinylm.kernels import rotary_tables


def main(steps: int = 10):
    config.USE_FLASH = False
    torch.compiler.allow_in_graph(rotary_tables)
    model = torch.compile(TinyLM())
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for _ in range(steps):
        tokens = torch.randint(0, 256, (4, 32))
        logits = model(tokens[:, :-1])
        loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), tokens[:, 1:].flatten())
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()


if __name__ == "__main__":
    main()
