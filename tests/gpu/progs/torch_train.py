# SPDX-License-Identifier: MIT
# A PyTorch program (cuDNN convolutions, cuBLAS, PyTorch's own kernels):
# a few training steps of a small CNN on fixed data, then inference.
# Deterministic algorithms only, so that every run computes the same
# bits and the replay verifies. Prints PASS or FAIL.
import os
import sys

os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
import torch  # noqa: E402

torch.manual_seed(0)
torch.backends.cudnn.benchmark = False
torch.backends.cudnn.deterministic = True
torch.use_deterministic_algorithms(True)
dev = torch.device("cuda")
# Strided convolutions, no pooling: pooling's backward has no
# deterministic CUDA implementation.
model = torch.nn.Sequential(
    torch.nn.Conv2d(3, 16, 3, padding=1, stride=2), torch.nn.ReLU(),
    torch.nn.Conv2d(16, 32, 3, padding=1, stride=2), torch.nn.ReLU(),
    torch.nn.Flatten(), torch.nn.Linear(32 * 8 * 8, 10)).to(dev)
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
x = torch.randn(32, 3, 32, 32, generator=torch.Generator().manual_seed(1)).to(dev)
y = torch.randint(0, 10, (32,), generator=torch.Generator().manual_seed(2)).to(dev)
losses = []
for _ in range(3):
    opt.zero_grad()
    loss = torch.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    losses.append(loss.item())
with torch.no_grad():
    pred = model(x).argmax(1).cpu()
ok = all(l == l and l > 0 for l in losses) and losses[-1] < losses[0] + 1.0
print("%s torch_train: losses %s, %d predictions"
      % ("PASS" if ok else "FAIL", " ".join("%.4f" % l for l in losses), len(pred)))
sys.exit(0 if ok else 1)
