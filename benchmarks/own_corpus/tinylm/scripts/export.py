"""Export the model with its kernels kept as single nodes."""

import tinylm.kernels as K
import torch
from tinylm.model import TinyLM

torch.compiler.allow_in_graph(K.attention)
model = TinyLM()
torch.compiler.allow_in_graph(model)  # AIG402


if __name__ == "__main__":
    torch.export.export(model, (torch.randint(0, 256, (1, 16)),))
