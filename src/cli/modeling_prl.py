"""A Program RL Lab policy in PyTorch: the same transformer as the lab's (src/core/model/transformer.ts).

Written by `npm run export` beside model.safetensors, config.json and vocab.json. It needs only
torch, json and struct:

    import modeling_prl
    model = modeling_prl.load("exported")                 # a torch.nn.Module in eval mode
    logits = model(torch.tensor([[3, 17, 42]]))           # [batch, tokens, vocab]
    modeling_prl.save(model, "exported/model.safetensors")  # back to the lab: --init-from it
    # (a file of model.state_dict() saved by safetensors.torch.save_file loads in the lab too)

    python3 modeling_prl.py exported --ids 3,17,42        # the next-token logits, one JSON list

The policy: learned token and position embeddings (plus, as the lab's config says, an embedding
of each token's predecessor and the token two back, a fixed sinusoidal code of number tokens, an
embedding of the difference between consecutive numbers, the run lengths of runLengths.ts and the
copy pointer of copyPointer.ts), pre-LayerNorm blocks of causal multi-head attention and
a tanh-GELU MLP (4x), a final LayerNorm and an untied head to which the number code is added
(x10). Linear weights are stored [in, out], as the lab stores them: y = x @ w + b.
"""
import json
import math
import struct
import sys

import torch
import torch.nn.functional as F

NEG = -1e9
HEAD_CODE_GAIN = 10.0
LAYER_NORM_EPSILON = 1e-5


def read_safetensors(path):
    """{name: float32 tensor} from a safetensors file (F32, F16 or BF16)."""
    with open(path, "rb") as f:
        data = f.read()
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + length])
    start = 8 + length
    dtypes = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        begin, end = entry["data_offsets"]
        raw = bytearray(data[start + begin : start + end])
        flat = torch.frombuffer(raw, dtype=dtypes[entry["dtype"]]) if end > begin else torch.zeros(0, dtype=dtypes[entry["dtype"]])
        tensors[name] = flat.to(torch.float32).reshape(entry["shape"])
    return tensors


def write_safetensors(tensors, path, metadata=None):
    """Writes {name: tensor} as F32 safetensors: 8-byte header length, JSON header padded to 8 bytes, the data."""
    header = {"__metadata__": metadata} if metadata else {}
    blobs = []
    offset = 0
    for name, tensor in tensors.items():
        blob = tensor.detach().to(torch.float32).contiguous().numpy().astype("<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(tensor.shape), "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    text = json.dumps(header).encode("utf-8")
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for blob in blobs:
            f.write(blob)


def lab_name(torch_name):
    """The lab's name of a parameter: blocks.0.qkv.w -> b0/qkv/w, tok -> tok."""
    parts = torch_name.split(".")
    if parts[0] == "blocks":
        parts = ["b" + parts[1]] + parts[2:]
    return "/".join(parts)


def number_code(vocab_size, d_model, first, count):
    """The fixed code [V, d] of number tokens: sin/cos of n / count^(2i/d), amplitude 0.03."""
    code = torch.zeros(vocab_size, d_model, dtype=torch.float64)
    for n in range(count):
        for i in range(d_model // 2):
            angle = n / count ** ((2 * i) / d_model)
            code[first + n, 2 * i] = 0.03 * math.sin(angle)
            code[first + n, 2 * i + 1] = 0.03 * math.cos(angle)
    return code.to(torch.float32)


def moved_code(code, seed):
    """The code with its dimensions moved by the signed permutation of transformer.ts's movedCode (seed k: the k-th previous token)."""
    d = code.shape[1]
    state = seed

    def draw():
        nonlocal state
        state = (state * 1103515245 + 12345) & 0x7FFFFFFF
        return state

    order = list(range(d))
    for i in range(d - 1, 0, -1):
        j = draw() % (i + 1)
        order[i], order[j] = order[j], order[i]
    signs = [-1.0 if (draw() >> 16) & 1 else 1.0 for _ in order]
    moved = torch.zeros_like(code)
    for i in range(d):
        moved[:, order[i]] = signs[i] * code[:, i]
    return moved


def run_inputs(tokens, first, count, strides, delta_max=8):
    """Per token, the rows of runLengths.ts's inputs: a run length per stride, then a difference per stride from 2."""
    B, T = tokens.shape
    lengths = [torch.zeros_like(tokens) for _ in range(strides)]
    deltas = [torch.zeros_like(tokens) for _ in range(strides - 1)]
    for b in range(B):
        trail = [[(0, 0, 0)] * s for s in range(1, strides + 1)]  # (value, delta, length) of the last s tokens, oldest first
        for t in range(T):
            v = int(tokens[b, t]) - first
            for k in range(strides):
                value, delta, length = trail[k][0]
                if v < 0 or v >= count:
                    state = (0, 0, 0)
                elif length == 0:
                    state = (v, 0, 1)
                else:
                    step = v - value
                    state = (v, step, length + 1 if length >= 2 and step == delta else 2)
                trail[k] = trail[k][1:] + [state]
                lengths[k][b, t] = min(state[2], count - 1)
                if k >= 1:
                    clipped = min(max(state[1], -delta_max - 1), delta_max + 1) + delta_max + 1
                    deltas[k - 1][b, t] = clipped if state[2] >= 2 else 2 * delta_max + 3
    return lengths + deltas


def copy_inputs(tokens, first, count, end, resume=False, match_max=15):
    """Per token, the rows of copyPointer.ts's inputs: the prompt value after the longest stretch that ends in the program's last numbers (count: none), and 2 x its length + 1 when it is the only one (0: none; 1: resumed, with resume)."""
    B, T = tokens.shape
    rows = tokens.tolist()
    following = torch.full_like(tokens, count)
    matched = torch.zeros_like(tokens)
    for b in range(B):
        prompt, in_program, match = [], False, None
        for t in range(T):
            token = rows[b][t]
            v = token - first
            is_number = 0 <= v < count
            if not in_program:
                if token == end:
                    in_program = True
                elif is_number:
                    prompt.append(v)
                continue
            if not is_number:
                if resume:  # the match is kept; the last value pointed to is read again, resumed (row 1)
                    following[b, t] = following[b, t - 1]
                    matched[b, t] = 1 if following[b, t] != count else 0
                else:
                    match = None
                continue
            now = [(1 + (match[j - 1] if j > 0 and match else 0)) if p == v else 0 for j, p in enumerate(prompt)]
            match = now
            best = max(now, default=0)
            if best > 0:
                at = now.index(best)
                following[b, t] = prompt[at + 1] if at + 1 < len(prompt) else count
                matched[b, t] = 2 * min(best, match_max) + (1 if now.count(best) == 1 else 0)
    return [following, matched]


class Affine(torch.nn.Module):
    """Parameters w [in, out] and b [out] of y = x @ w + b."""

    def __init__(self, n_in, n_out):
        super().__init__()
        self.w = torch.nn.Parameter(torch.zeros(n_in, n_out))
        self.b = torch.nn.Parameter(torch.zeros(n_out))

    def forward(self, x):
        return x @ self.w + self.b


class Norm(torch.nn.Module):
    """LayerNorm over the last axis with gain g and bias b, epsilon 1e-5."""

    def __init__(self, d):
        super().__init__()
        self.g = torch.nn.Parameter(torch.ones(d))
        self.b = torch.nn.Parameter(torch.zeros(d))

    def forward(self, x):
        return F.layer_norm(x, (x.shape[-1],), self.g, self.b, LAYER_NORM_EPSILON)


class Block(torch.nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.ln1, self.qkv, self.proj = Norm(d), Affine(d, 3 * d), Affine(d, d)
        self.ln2, self.fc1, self.fc2 = Norm(d), Affine(d, 4 * d), Affine(4 * d, d)

    def forward(self, x, mask):
        B, T, d = x.shape
        h, dh = self.heads, d // self.heads
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=-1)
        q, k, v = (t.reshape(B, T, h, dh).transpose(1, 2) for t in (q, k, v))
        scores = q @ k.transpose(-1, -2) / math.sqrt(dh) + mask
        attended = (scores.softmax(-1) @ v).transpose(1, 2).reshape(B, T, d)
        x = x + self.proj(attended)
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x)), approximate="tanh"))


class ProgramPolicy(torch.nn.Module):
    def __init__(self, policy):
        super().__init__()
        self.policy = policy
        V, d, C = policy["vocabSize"], policy["dModel"], policy["context"]
        self.tok = torch.nn.Parameter(torch.zeros(V, d))
        self.pos = torch.nn.Parameter(torch.zeros(C, d))
        if policy.get("previousToken"):
            self.prev = torch.nn.Parameter(torch.zeros(V, d))
        numbers = policy.get("numberTokens")
        code = number_code(V, d, numbers["first"], numbers["count"]) if numbers else torch.zeros(V, d)
        self.register_buffer("code", code, persistent=False)
        # With secondPrevious the previous tokens' number codes point elsewhere than the token's own.
        second = bool(policy.get("secondPrevious"))
        self.register_buffer("prev_code", moved_code(code, 1) if second else code, persistent=False)
        if second:
            self.prev2 = torch.nn.Parameter(torch.zeros(V, d))
            self.register_buffer("prev2_code", moved_code(code, 2), persistent=False)
        runs = policy.get("runLengths")
        if runs:
            # Tables named as the lab's (runLengths.ts inputs): runlen, runlen2, ..., delta2, ...; run lengths carry a moved number code.
            strides, count = runs.get("strides", 1), runs["count"]
            self.run_tables = [("runlen" if s == 1 else f"runlen{s}", count, True) for s in range(1, strides + 1)]
            self.run_tables += [(f"delta{s}", 2 * 8 + 4, False) for s in range(2, strides + 1)]
            for i, (name, rows, coded) in enumerate(self.run_tables):
                setattr(self, name, torch.nn.Parameter(torch.zeros(rows, d)))
                code = moved_code(number_code(rows, d, 0, rows), 3 + i) if coded else torch.zeros(rows, d)
                self.register_buffer(f"{name}_code", code, persistent=False)
        copy = policy.get("copyPointer")
        if copy:
            # copyPointer.ts's tables: the next value (count + 1 rows, its number code moved by seed 10) and the match.
            self.copy = torch.nn.Parameter(torch.zeros(copy["count"] + 1, d))
            self.register_buffer("copy_code", moved_code(number_code(copy["count"] + 1, d, 0, copy["count"]), 10), persistent=False)
            self.copylen = torch.nn.Parameter(torch.zeros(32, d))
        deltas = policy.get("valueDeltas")
        if deltas:
            self.delta = torch.nn.Parameter(torch.zeros(2 * deltas["max"] + 4, d))
        self.blocks = torch.nn.ModuleList(Block(d, policy["heads"]) for _ in range(policy["layers"]))
        self.lnf = Norm(d)
        self.head = Affine(d, V)

    def delta_index(self, tokens, previous):
        deltas = self.policy["valueDeltas"]
        first, count, top = deltas["first"], deltas["count"], deltas["max"]
        is_number = lambda t: (t >= first) & (t < first + count)  # noqa: E731
        clipped = (tokens - previous).clamp(-top - 1, top + 1) + top + 1
        return torch.where(is_number(tokens) & is_number(previous), clipped, torch.full_like(tokens, 2 * top + 3))

    def forward(self, tokens):
        """tokens [B, T] (int64, unpadded rows) -> logits [B, T, V]."""
        B, T = tokens.shape
        previous = torch.cat([torch.zeros(B, 1, dtype=tokens.dtype), tokens[:, :-1]], dim=1)
        x = (self.tok + self.code)[tokens] + self.pos[torch.arange(T)]
        if hasattr(self, "prev"):
            x = x + (self.prev + self.prev_code)[previous]
        if hasattr(self, "prev2"):
            second = torch.cat([torch.zeros(B, 1, dtype=tokens.dtype), previous[:, :-1]], dim=1)
            x = x + (self.prev2 + self.prev2_code)[second]
        if hasattr(self, "delta"):
            x = x + self.delta[self.delta_index(tokens, previous)]
        runs = self.policy.get("runLengths")
        if runs:
            rows = run_inputs(tokens, runs["first"], runs["count"], runs.get("strides", 1))
            for (name, _, _), index in zip(self.run_tables, rows):
                x = x + (getattr(self, name) + getattr(self, f"{name}_code"))[index]
        copy = self.policy.get("copyPointer")
        if copy:
            following, matched = copy_inputs(tokens, copy["first"], copy["count"], copy["end"], copy.get("resume", False))
            x = x + (self.copy + self.copy_code)[following] + self.copylen[matched]
        mask = torch.triu(torch.full((T, T), NEG), diagonal=1)
        for block in self.blocks:
            x = block(x, mask)
        return self.lnf(x) @ (self.head.w + self.code.T * HEAD_CODE_GAIN) + self.head.b


def load(folder):
    """The policy of an exported folder (config.json and model.safetensors), in eval mode."""
    with open(f"{folder}/config.json") as f:
        config = json.load(f)
    model = ProgramPolicy(config["policy"])
    weights = read_safetensors(f"{folder}/model.safetensors")
    expected = {lab_name(name) for name in model.state_dict()}
    if set(weights) != expected:
        raise ValueError(f"model.safetensors holds {sorted(set(weights) ^ expected)} where this policy differs")
    model.load_state_dict({name: weights[lab_name(name)] for name in model.state_dict()})
    return model.eval()


def save(model, path):
    """Writes the model's state_dict as safetensors under the lab's names: `--init-from` reads it."""
    write_safetensors({lab_name(name): tensor for name, tensor in model.state_dict().items()}, path, {"format": "pt", "written_by": "modeling_prl.py"})


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[2] != "--ids":
        sys.exit("usage: python3 modeling_prl.py FOLDER --ids 3,17,42")
    policy = load(sys.argv[1])
    ids = torch.tensor([[int(token) for token in sys.argv[3].split(",")]])
    with torch.no_grad():
        print(json.dumps(policy(ids)[0, -1].tolist()))
