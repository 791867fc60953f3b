#!/usr/bin/env python3
"""DeepSeek V3.2's attention path in torch, fp32, for checking kvflow's V32Model on the same weights.

It follows DeepSeek's inference code for V3.2 (deepseek-ai/DeepSeek-V3.2-Exp, inference/model.py at
commit 6d8cb70dfdd6f37c83c5208105a3e2c8da117485: MLA, Indexer, precompute_freqs_cis,
apply_rotary_emb, rotate_activation, act_quant), written here for this check, with the KV store's
rounding applied as kvflow stores rows: latent fp8 in 128-wide tiles (scale amax/448), rope bf16,
indexer keys fp8 with one scale. MLA is absorbed (attention over the latent rows).

  v32_reference.py weights FILE --config tiny|real --layers L [--vocab V] [--seed S]
      writes random weights of the shapes under the published checkpoint names (safetensors;
      q_a_proj as fp8 with 128x128 block scales, the embedding bf16, the rest fp32)
  v32_reference.py golden FILE --weights W --config tiny --layers L --tokens N --out JSON
      the keys of N seeded tokens, every query's top-k and attention output, per layer
  v32_reference.py time --weights W --config real --keys K --queries Q [--compare kvflow.json]
      one layer's attention path for the last Q of K tokens (token t: t * 2654435761 mod vocab),
      best of --repeats, as a JSON line; with --compare, kvflow's outputs and top-k for the
      queries that file holds against torch's
"""
import argparse
import json
import math
import struct
import sys
import time

import torch
import torch.nn.functional as F

CONFIGS = {
    "real": dict(hidden=7168, q_lora=1536, kv_lora=512, rope=64, heads=128, nope=128, v=128, index_heads=64, index_dim=128, topk=2048),
    "tiny": dict(hidden=64, q_lora=48, kv_lora=32, rope=16, heads=4, nope=16, v=16, index_heads=4, index_dim=32, topk=8),
}
YARN = dict(theta=10000.0, factor=40.0, original=4096, max_seq=163840, beta_fast=32, beta_slow=1, mscale=1.0)
DTYPES = {torch.float32: "F32", torch.bfloat16: "BF16", torch.float8_e4m3fn: "F8_E4M3"}


def shapes(c, layers):
    out = {}
    for l in range(layers):
        p = f"model.layers.{l}."
        a = p + "self_attn."
        out[p + "input_layernorm.weight"] = (c["hidden"],)
        out[a + "q_a_proj.weight"] = (c["q_lora"], c["hidden"])
        out[a + "q_a_layernorm.weight"] = (c["q_lora"],)
        out[a + "q_b_proj.weight"] = (c["heads"] * (c["nope"] + c["rope"]), c["q_lora"])
        out[a + "kv_a_proj_with_mqa.weight"] = (c["kv_lora"] + c["rope"], c["hidden"])
        out[a + "kv_a_layernorm.weight"] = (c["kv_lora"],)
        out[a + "kv_b_proj.weight"] = (c["heads"] * (c["nope"] + c["v"]), c["kv_lora"])
        out[a + "o_proj.weight"] = (c["hidden"], c["heads"] * c["v"])
        out[a + "indexer.wq_b.weight"] = (c["index_heads"] * c["index_dim"], c["q_lora"])
        out[a + "indexer.wk.weight"] = (c["index_dim"], c["hidden"])
        out[a + "indexer.k_norm.weight"] = (c["index_dim"],)
        out[a + "indexer.k_norm.bias"] = (c["index_dim"],)
        out[a + "indexer.weights_proj.weight"] = (c["index_heads"], c["hidden"])
    return out


def write_safetensors(path, tensors):
    header, offset, blobs = {}, 0, []
    for name, t in tensors.items():
        data = t.contiguous().cpu().view(torch.uint8).numpy().tobytes()
        header[name] = {"dtype": DTYPES[t.dtype], "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
        blobs.append(data)
    raw = json.dumps(header).encode()
    raw += b" " * (-len(raw) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(raw)))
        f.write(raw)
        for b in blobs:
            f.write(b)


def read_safetensors(path, device):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        payload = f.read()
    names = {v: k for k, v in DTYPES.items()}
    out = {}
    for name, e in header.items():
        if name == "__metadata__":
            continue
        b, end = e["data_offsets"]
        t = torch.frombuffer(bytearray(payload[b:end]), dtype=torch.uint8).view(names[e["dtype"]]).reshape(e["shape"])
        out[name] = t.to(device)
    return out


def weight(w, name):
    t = w[name]
    if t.dtype == torch.float8_e4m3fn:
        s = w[name + "_scale_inv"].float()
        t = t.float() * s.repeat_interleave(128, 0)[: t.shape[0]].repeat_interleave(128, 1)[:, : t.shape[1]]
    return t.float()


def random_weights(c, layers, vocab, seed):
    g = torch.Generator().manual_seed(seed)
    out = {"model.embed_tokens.weight": torch.randn(vocab, c["hidden"], generator=g).to(torch.bfloat16)}
    for name, shape in shapes(c, layers).items():
        if len(shape) == 1:
            base = 0.0 if name.endswith("bias") else 1.0
            out[name] = base + 0.1 * torch.randn(shape, generator=g)
        elif name.endswith("q_a_proj.weight"):
            full = torch.randn(shape, generator=g) / math.sqrt(shape[1])
            rows, cols = (shape[0] + 127) // 128, (shape[1] + 127) // 128
            pad = torch.zeros(rows * 128, cols * 128)
            pad[: shape[0], : shape[1]] = full
            blocks = pad.view(rows, 128, cols, 128)
            scale = blocks.abs().amax(dim=(1, 3)).clamp(min=1e-12) / 448.0
            codes = (blocks / scale[:, None, :, None]).clamp(-448, 448).to(torch.float8_e4m3fn)
            out[name] = codes.view(rows * 128, cols * 128)[: shape[0], : shape[1]].contiguous()
            out[name + "_scale_inv"] = scale.float()
        else:
            out[name] = torch.randn(shape, generator=g) / math.sqrt(shape[1])
    return out


def freqs(c):
    dim = c["rope"]
    f = 1.0 / (YARN["theta"] ** (torch.arange(0, dim, 2, dtype=torch.float32) / dim))
    if YARN["max_seq"] > YARN["original"]:
        def corr(rot):
            return dim * math.log(YARN["original"] / (rot * 2 * math.pi)) / (2 * math.log(YARN["theta"]))
        low = max(math.floor(corr(YARN["beta_fast"])), 0)
        high = min(math.ceil(corr(YARN["beta_slow"])), dim - 1)
        if low == high:
            high += 0.001
        ramp = ((torch.arange(dim // 2, dtype=torch.float32) - low) / (high - low)).clamp(0, 1)
        smooth = 1 - ramp
        f = f / YARN["factor"] * (1 - smooth) + f * smooth
    return f


def rope(x, pos, f):
    ang = pos.float()[:, None] * f.to(x.device)[None, :]
    while ang.dim() < x.dim():
        ang = ang.unsqueeze(-2)
    cos, sin = torch.cos(ang), torch.sin(ang)
    a, b = x[..., 0::2], x[..., 1::2]
    return torch.stack([a * cos - b * sin, a * sin + b * cos], dim=-1).flatten(-2)


def hadamard(x):
    d = x.shape[-1]
    i = torch.arange(d, device=x.device)
    bits = (i[:, None] & i[None, :])
    parity = torch.zeros_like(bits)
    while bits.any():
        parity ^= bits & 1
        bits >>= 1
    h = (1 - 2 * parity).float()
    return (x @ h) * d ** -0.5


def quant(x):
    """fp8 per row of at most 128, scale amax/448 (1 when amax is 0): the decoded codes and the scale."""
    amax = x.abs().amax(-1, keepdim=True)
    scale = torch.where(amax == 0, torch.ones_like(amax), amax / 448.0)
    return (x / scale).clamp(-448, 448).to(torch.float8_e4m3fn).float(), scale


def rms(x, w):
    return w * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6))


class Layer:
    def __init__(self, w, c, l):
        p = f"model.layers.{l}."
        a = p + "self_attn."
        self.c, self.w, self.f = c, {k[len(a):] if k.startswith(a) else k: weight(w, k) for k in w if not k.endswith("_scale_inv")
                                     and (k.startswith(a) or k.startswith(p) or k.startswith("model.embed"))}, freqs(c)
        self.embed = w["model.embed_tokens.weight"].float()
        self.norm = weight(w, p + "input_layernorm.weight")

    def x(self, ids):
        return rms(self.embed[ids], self.norm)

    def keys(self, ids, pos):
        c, w = self.c, self.w
        x = self.x(ids)
        kv = x @ w["kv_a_proj_with_mqa.weight"].T
        latent = rms(kv[:, : c["kv_lora"]], w["kv_a_layernorm.weight"])
        kpe = rope(kv[:, c["kv_lora"]:], pos, self.f)
        k = F.layer_norm(x @ w["indexer.wk.weight"].T, (c["index_dim"],), w["indexer.k_norm.weight"], w["indexer.k_norm.bias"], 1e-6)
        k = hadamard(torch.cat([rope(k[:, : c["rope"]], pos, self.f), k[:, c["rope"]:]], -1))
        return latent, kpe, k

    def stored(self, latent, kpe, k):
        tiles = [torch.mul(*quant(t)) for t in latent.split(128, -1)]
        return torch.cat(tiles, -1), kpe.to(torch.bfloat16).float(), quant(k)

    def queries(self, ids, pos):
        """Per query: the absorbed latent query, the rotated rope query (per head) and the indexer's fp8 query and head weights."""
        c, w = self.c, self.w
        n, heads = len(pos), c["heads"]
        x = self.x(ids[pos])
        qr = rms(x @ w["q_a_proj.weight"].T, w["q_a_layernorm.weight"])
        q = (qr @ w["q_b_proj.weight"].T).view(n, heads, c["nope"] + c["rope"])
        wkv_b = w["kv_b_proj.weight"].view(heads, c["nope"] + c["v"], c["kv_lora"])
        q_lat = torch.einsum("shd,hdc->shc", q[..., : c["nope"]], wkv_b[:, : c["nope"]])
        q_pe = rope(q[..., c["nope"]:], pos, self.f)
        qi = (qr @ w["indexer.wq_b.weight"].T).view(n, c["index_heads"], c["index_dim"])
        qi = hadamard(torch.cat([rope(qi[..., : c["rope"]], pos, self.f), qi[..., c["rope"]:]], -1))
        qcodes, qscale = quant(qi)
        weights = (x @ w["indexer.weights_proj.weight"].T) * c["index_heads"] ** -0.5 * qscale.squeeze(-1) * c["index_dim"] ** -0.5
        return q_lat, q_pe, qcodes, weights

    def scores(self, pos, qcodes, weights, kcodes, kscale):
        """The lightning indexer's scores of every key, -inf where a query cannot see it."""
        score = (torch.relu(torch.einsum("shd,td->sht", qcodes, kcodes)) * weights[:, :, None]).sum(1) * kscale.squeeze(-1)[None, :]
        visible = torch.arange(kcodes.shape[0], device=score.device)[None, :] <= pos[:, None]
        return score.masked_fill(~visible, float("-inf"))

    def attend(self, ids, qpos, latent_s, kpe_s, kcodes, kscale, block=16, chosen=None):
        """Outputs and selections of the queries at qpos; chosen (queries x k positions) replaces the indexer's selection."""
        c, w = self.c, self.w
        heads = c["heads"]
        wkv_b = w["kv_b_proj.weight"].view(heads, c["nope"] + c["v"], c["kv_lora"])
        scale = (c["nope"] + c["rope"]) ** -0.5 * (0.1 * YARN["mscale"] * math.log(YARN["factor"]) + 1) ** 2
        topk, outs = [], []
        for b in range(0, len(qpos), block):
            pos = qpos[b:b + block]
            n = len(pos)
            q_lat, q_pe, qcodes, weights = self.queries(ids, pos)
            score = self.scores(pos, qcodes, weights, kcodes, kscale)
            # a row that sees fewer than k keys picks masked ones too: they are dropped below
            sel = score.topk(min(c["topk"], kcodes.shape[0]), -1).indices.sort(-1).values if chosen is None else chosen[b:b + block]
            valid = torch.gather(score > float("-inf"), 1, sel)
            logits = (torch.einsum("shc,stc->sht", q_lat, latent_s[sel]) + torch.einsum("shr,str->sht", q_pe, kpe_s[sel])) * scale
            logits = logits.masked_fill(~valid[:, None, :], float("-inf"))
            mix = torch.einsum("sht,stc->shc", logits.softmax(-1), latent_s[sel])
            o = torch.einsum("shc,hdc->shd", mix, wkv_b[:, c["nope"]:])
            outs.append(o.flatten(1) @ w["o_proj.weight"].T)
            topk.extend(sel[i][valid[i]] for i in range(n))
        return topk, torch.cat(outs)


def token_ids(n, vocab, device):
    """The token ids kvflow's V32LayerBench uses: position t holds t * 2654435761 mod vocab."""
    return (torch.arange(n, dtype=torch.int64) * 2654435761 % vocab).to(device)


def timed(args, c):
    dev = "cuda"
    w = read_safetensors(args.weights, dev)
    vocab = w["model.embed_tokens.weight"].shape[0]
    ids = token_ids(args.keys, vocab, dev)
    with torch.no_grad():
        layer = Layer(w, c, 0)
        parts = [layer.keys(ids[s:s + 8192], torch.arange(s, min(s + 8192, args.keys), device=dev)) for s in range(0, args.keys, 8192)]
        latent, kpe, k = (torch.cat([p[i] for p in parts]) for i in range(3))
        latent_s, kpe_s, (kcodes, kscale) = layer.stored(latent, kpe, k)
        qpos = torch.arange(args.keys - args.queries, args.keys, device=dev)
        layer.attend(ids, qpos[:16], latent_s, kpe_s, kcodes, kscale)  # warm-up
        torch.cuda.synchronize()

        def best_of():
            best, result = float("inf"), None
            for _ in range(args.repeats):
                t0 = time.perf_counter()
                result = layer.attend(ids, qpos, latent_s, kpe_s, kcodes, kscale)
                torch.cuda.synchronize()
                best = min(best, time.perf_counter() - t0)
            return best, result

        best, (topk, out) = best_of()
        torch.backends.cuda.matmul.allow_tf32 = True  # context only: tf32 products lose the fp32 precision kvflow keeps
        best_tf32, _ = best_of()
        torch.backends.cuda.matmul.allow_tf32 = False
        doc = {"name": "torch_v32_step", "keys": args.keys, "queries": args.queries, "ms": best * 1e3, "ms_tf32": best_tf32 * 1e3}
        if args.compare:
            with open(args.compare) as f:
                ours = json.load(f)
            pos = torch.tensor([q["position"] for q in ours["queries"]], device=dev)
            theirs = torch.tensor([q["selected"] for q in ours["queries"]], device=dev)
            _, given = layer.attend(ids, pos, latent_s, kpe_s, kcodes, kscale, chosen=theirs)
            q_lat, q_pe, qcodes, weights = layer.queries(ids, pos)
            score = layer.scores(pos, qcodes, weights, kcodes, kscale)
            diff, diff_given, agree, total, scale, gap = 0.0, 0.0, 0, 0, 0.0, 0.0
            for j, q in enumerate(ours["queries"]):
                i = q["position"] - (args.keys - args.queries)
                want = out[i].float().cpu()
                diff = max(diff, (torch.tensor(q["out"]) - want).abs().max().item())
                diff_given = max(diff_given, (torch.tensor(q["out"]) - given[j].float().cpu()).abs().max().item())
                scale = max(scale, want.abs().max().item())
                a, b = set(q["selected"]), set(topk[i].tolist())
                agree += len(a & b)
                total += len(b)
                kth = score[j].topk(len(b)).values[-1].item()
                for key in a ^ b:  # a key one side kept and the other did not: how far its torch score lies from torch's k-th
                    gap = max(gap, abs(score[j, key].item() - kth) / abs(kth))
            doc.update({"max_abs_diff_attention_out": diff, "max_abs_diff_given_kvflow_topk": diff_given, "max_abs_attention_out": scale,
                        "topk_agreement": agree / total, "max_rel_gap_of_swapped_keys": gap, "compared_queries": len(ours["queries"])})
    print(json.dumps(doc))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["weights", "golden", "time"])
    ap.add_argument("file", nargs="?")
    ap.add_argument("--config", default="tiny")
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--vocab", type=int, default=512)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--weights")
    ap.add_argument("--tokens", type=int, default=40)
    ap.add_argument("--keys", type=int, default=131072)
    ap.add_argument("--queries", type=int, default=8192)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--compare")
    args = ap.parse_args()
    c = CONFIGS[args.config]
    torch.manual_seed(args.seed)
    if args.mode == "time":
        return timed(args, c)
    if args.mode == "weights":
        write_safetensors(args.file, random_weights(c, args.layers, args.vocab, args.seed))
        return
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    w = read_safetensors(args.weights, dev)
    vocab = w["model.embed_tokens.weight"].shape[0]
    g = torch.Generator().manual_seed(args.seed + 1)
    ids = torch.randint(0, vocab, (args.tokens,), generator=g).to(dev)
    pos = torch.arange(args.tokens, device=dev)
    doc = {"source": "bench/device/v32_reference.py golden", "config": args.config, "tokens": ids.tolist(), "layers": []}
    with torch.no_grad():
        for l in range(args.layers):
            layer = Layer(w, c, l)
            latent, kpe, k = layer.keys(ids, pos)
            latent_s, kpe_s, (kcodes, kscale) = layer.stored(latent, kpe, k)
            topk, out = layer.attend(ids, pos, latent_s, kpe_s, kcodes, kscale)
            doc["layers"].append({"latent": latent.flatten().tolist(), "rope": kpe.flatten().tolist(), "index": k.flatten().tolist(),
                                  "topk": [t.tolist() for t in topk], "out": out.flatten().tolist()})
    with open(args.file, "w") as f:
        json.dump(doc, f)
    print(json.dumps({"golden": args.file, "device": dev, "tokens": args.tokens, "layers": args.layers}))


if __name__ == "__main__":
    sys.exit(main())
