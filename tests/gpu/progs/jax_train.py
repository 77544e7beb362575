# SPDX-License-Identifier: MIT
# A jitted JAX training step as JAX users write one: a small MLP
# classifier, its cross-entropy loss, the gradients (jax.value_and_grad)
# and an SGD update in one jax.jit function, run for a few steps on
# batches the host prepares (NumPy, deterministic), the loss read back
# after each. Underneath, XLA's allocator (virtual memory management),
# its command buffers (CUDA graphs: cuStreamBeginCaptureToGraph,
# cuGraphAddNode) and cuBLAS: the capture must record every call and the
# replay verify every result. Preallocation is off (as most users set it,
# so that the process takes what it uses) and XLA's deterministic ops on,
# so that every run computes the same bits. Prints PASS or FAIL.
import os
import sys

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
os.environ.setdefault("XLA_FLAGS", "--xla_gpu_deterministic_ops=true")
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

STEPS = int(sys.argv[1]) if len(sys.argv) > 1 else 8
SIZES = (256, 512, 512, 10)
BATCH = 128


def init(key):
    params = []
    for n_in, n_out in zip(SIZES[:-1], SIZES[1:]):
        key, k = jax.random.split(key)
        params.append((jax.random.normal(k, (n_in, n_out)) / np.sqrt(n_in),
                       jnp.zeros((n_out,))))
    return params


def forward(params, x):
    for w, b in params[:-1]:
        x = jax.nn.relu(x @ w + b)
    w, b = params[-1]
    return x @ w + b


def loss_fn(params, x, y):
    logp = jax.nn.log_softmax(forward(params, x))
    return -jnp.mean(jnp.sum(jax.nn.one_hot(y, SIZES[-1]) * logp, axis=1))


@jax.jit
def train_step(params, x, y):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    params = jax.tree_util.tree_map(lambda p, g: p - 0.05 * g, params, grads)
    return params, loss


if not any(d.platform == "gpu" for d in jax.devices()):
    print("FAIL jax_train: no GPU device")
    sys.exit(1)
rng = np.random.default_rng(0)
centers = rng.standard_normal((SIZES[-1], SIZES[0])).astype(np.float32)
params = init(jax.random.PRNGKey(0))
losses = []
for step in range(STEPS):
    # host work: a batch of noisy samples around class centers
    y = rng.integers(0, SIZES[-1], BATCH)
    x = centers[y] + 0.5 * rng.standard_normal((BATCH, SIZES[0]))
    params, loss = train_step(params, jnp.asarray(x, jnp.float32),
                              jnp.asarray(y))
    losses.append(float(loss))
ok = all(np.isfinite(losses)) and losses[-1] < losses[0]
print("%s jax_train: %d steps, loss %.4f -> %.4f"
      % ("PASS" if ok else "FAIL", STEPS, losses[0], losses[-1]))
sys.exit(0 if ok else 1)
