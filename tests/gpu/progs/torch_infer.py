# SPDX-License-Identifier: MIT
# A PyTorch inference loop as a serving program runs one: per batch, the
# host prepares the input (decoding and normalizing, here a deterministic
# CPU computation), the GPU runs a small CNN (cuDNN convolutions, cuBLAS)
# and the host reads the predictions back and post-processes them. The
# GPU is idle most of the loop, which is what its replay must reproduce
# (doc/gpumix-replay.md, "Host time"). Deterministic algorithms only, so
# that every run computes the same bits. Prints PASS or FAIL.
import os
import sys

os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
import torch  # noqa: E402

BATCHES = int(sys.argv[1]) if len(sys.argv) > 1 else 10
torch.manual_seed(0)
torch.backends.cudnn.benchmark = False
torch.backends.cudnn.deterministic = True
torch.use_deterministic_algorithms(True)
dev = torch.device("cuda")
model = torch.nn.Sequential(
    torch.nn.Conv2d(3, 32, 3, padding=1), torch.nn.ReLU(),
    torch.nn.Conv2d(32, 64, 3, padding=1, stride=2), torch.nn.ReLU(),
    torch.nn.Conv2d(64, 64, 3, padding=1, stride=2), torch.nn.ReLU(),
    torch.nn.Flatten(), torch.nn.Linear(64 * 16 * 16, 100)).to(dev).eval()
gen = torch.Generator().manual_seed(1)
counts = [0] * 100
with torch.no_grad():
    for b in range(BATCHES):
        # host work: an "image decode" and normalization on the CPU
        raw = torch.randint(0, 256, (16, 3, 64, 64), generator=gen,
                            dtype=torch.uint8)
        x = raw.float().div(255.0).sub(0.5).div(0.25)
        top = model(x.to(dev)).softmax(1).topk(5).indices.cpu()
        # host work: post-processing the predictions
        for row in top.tolist():
            for c in row:
                counts[c] += 1
ok = sum(counts) == BATCHES * 16 * 5
print("%s torch_infer: %d batches, %d classes predicted"
      % ("PASS" if ok else "FAIL", BATCHES, sum(1 for c in counts if c)))
sys.exit(0 if ok else 1)
