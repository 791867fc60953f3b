"""torch baselines for bench/device/kernel-speed.sh, on the shapes KernelSpeedBench measures.

scores NQ NK: Gaussian queries (bf16) times the transpose of NK fp8 e4m3 keys of dim 128 with one
scale a row, dequantised to bf16 (torch's matmul, bf16 out), the same product written as fp32
(torch.mm's out_dtype), and the same in fp32 (no TF32).
step QUERIES KEYS BATCH: the attention step of QUERIES queries over KEYS keys, BATCH queries at a
time: indexer scores (bf16 matmul), top-2,048 (unsorted), the selected 576-wide rows gathered,
logits over them scaled by 1/sqrt(576), softmax, the weighted sum of their first 512 columns.
CUDA events; scores: median of 20 after 3 warm-ups; step: median of 3 after 1.
"""
import json
import math
import sys

import torch

from torch_timing import timed

DIM, WIDTH, LATENT, TOP_K = 128, 576, 512, 2048
gen = torch.Generator(device="cuda").manual_seed(11)


def dequantised_keys(n):
    x = torch.randn(n, DIM, device="cuda", generator=gen)
    scale = x.abs().amax(dim=1, keepdim=True) / 448.0
    return ((x / scale).to(torch.float8_e4m3fn).float() * scale).to(torch.bfloat16)


case = sys.argv[1]
if case == "scores":
    nq, nk = int(sys.argv[2]), int(sys.argv[3])
    k = dequantised_keys(nk)
    q = torch.randn(nq, DIM, device="cuda", generator=gen).to(torch.bfloat16)
    timed(f"torch_scores_bf16_{nq}x{nk}", nq * nk * 2, lambda: q @ k.T)
    # the same bf16 product written as fp32, the bytes kvflow's scores write
    try:
        torch.mm(q[:1], k[:1].T, out_dtype=torch.float32)
    except (TypeError, RuntimeError) as e:  # a torch without mm's out_dtype
        print(json.dumps({"name": f"torch_scores_bf16_fp32out_{nq}x{nk}", "error": str(e)[:200]}), flush=True)
    else:
        timed(f"torch_scores_bf16_fp32out_{nq}x{nk}", nq * nk * 4, lambda: torch.mm(q, k.T, out_dtype=torch.float32))
    qf, kf = q.float(), k.float()
    timed(f"torch_scores_fp32_{nq}x{nk}", nq * nk * 4, lambda: qf @ kf.T)
elif case == "step":
    queries, keys, batch = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    k = dequantised_keys(keys)
    rows = torch.randn(keys, WIDTH, device="cuda", generator=gen)
    iq = torch.randn(batch, DIM, device="cuda", generator=gen).to(torch.bfloat16)
    q = torch.randn(batch, WIDTH, device="cuda", generator=gen)

    def step():
        out = None
        for _ in range(queries // batch):
            scores = (iq @ k.T).float()
            picked = rows[torch.topk(scores, TOP_K, dim=1, sorted=False).indices]
            p = torch.softmax(torch.einsum("bw,bkw->bk", q, picked) / math.sqrt(WIDTH), dim=1)
            out = torch.einsum("bk,bkc->bc", p, picked[..., :LATENT])
        return out

    timed(f"torch_step_{queries}x{keys}_b{batch}", 0, step, iterations=3, warmup=1)
else:
    raise SystemExit(f"unknown case {case!r}: scores NQ NK | step QUERIES KEYS BATCH")
