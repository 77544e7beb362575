# SPDX-License-Identifier: MIT
# A small transformer's greedy generation, shaped like a Hugging Face
# generate() loop without its library: a decoder-only model (embedding,
# causal self-attention blocks written out with torch operations, a
# language-model head), run once per new token on the whole sequence so
# far; after each step the host reads the next token back and appends
# it. Many small kernels, separated by the host's loop. Deterministic
# algorithms only, so that every run computes the same bits. Prints PASS
# or FAIL.
import math
import os
import sys

os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
import torch  # noqa: E402

TOKENS = int(sys.argv[1]) if len(sys.argv) > 1 else 32
VOCAB, DIM, HEADS, LAYERS = 1000, 256, 4, 4
torch.manual_seed(0)
torch.use_deterministic_algorithms(True)
dev = torch.device("cuda")


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1 = torch.nn.LayerNorm(DIM)
        self.qkv = torch.nn.Linear(DIM, 3 * DIM)
        self.out = torch.nn.Linear(DIM, DIM)
        self.ln2 = torch.nn.LayerNorm(DIM)
        self.mlp = torch.nn.Sequential(torch.nn.Linear(DIM, 4 * DIM),
                                       torch.nn.GELU(),
                                       torch.nn.Linear(4 * DIM, DIM))

    def forward(self, h, mask):
        b, n, _ = h.shape
        q, k, v = self.qkv(self.ln1(h)).split(DIM, dim=2)
        q, k, v = (t.view(b, n, HEADS, DIM // HEADS).transpose(1, 2)
                   for t in (q, k, v))
        att = (q @ k.transpose(-2, -1)) / math.sqrt(DIM // HEADS)
        att = att.masked_fill(mask[:n, :n], float("-inf")).softmax(-1)
        h = h + self.out((att @ v).transpose(1, 2).reshape(b, n, DIM))
        return h + self.mlp(self.ln2(h))


class Decoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(VOCAB, DIM)
        self.pos = torch.nn.Embedding(512, DIM)
        self.blocks = torch.nn.ModuleList(Block() for _ in range(LAYERS))
        self.ln = torch.nn.LayerNorm(DIM)
        self.head = torch.nn.Linear(DIM, VOCAB)
        self.register_buffer("mask", torch.ones(512, 512).triu(1).bool())

    def forward(self, ids):
        n = ids.shape[1]
        h = self.embed(ids) + self.pos(torch.arange(n, device=ids.device))
        for blk in self.blocks:
            h = blk(h, self.mask)
        return self.head(self.ln(h))


model = Decoder().to(dev).eval()
ids = [1, 17, 42, 7]
with torch.no_grad():
    for _ in range(TOKENS):
        logits = model(torch.tensor([ids], device=dev))
        ids.append(int(logits[0, -1].argmax().item()))
ok = len(ids) == 4 + TOKENS and all(0 <= t < VOCAB for t in ids)
print("%s torch_generate: %d tokens generated, last %d"
      % ("PASS" if ok else "FAIL", TOKENS, ids[-1]))
sys.exit(0 if ok else 1)
