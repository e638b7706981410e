"""GGUF headers: the metadata key-values and the tensor infos, read by paramcount's own bounded
parser (:mod:`paramcount.analyze.checkpoints.gguf_header`: gguf's ``GGUFReader`` walks every
declared element before anything can be checked); the ``gguf`` package (llama.cpp's own) gives
the types' names and sizes and the name map. The tensors' data are never read. The metadata
give the architecture and a transformers config (through the family's table in
:mod:`paramcount.analyze.checkpoints.gguf_names`); the names are translated to transformers', so
a GGUF tensor is attributed as a safetensors one is.

GGUF stores logical dimensions, innermost first (``ne[0]``): shapes are reversed here to the
row-major order transformers uses; a quantized tensor's bytes are whole blocks of its type
(``gguf.GGML_QUANT_SIZES``), its parameters the element count.
"""

from __future__ import annotations

import re
from pathlib import Path

from paramcount.analyze.checkpoints.gguf_header import read_header
from paramcount.analyze.checkpoints.gguf_names import TABLES, GGUFTable
from paramcount.analyze.checkpoints.quant import gguf_bytes
from paramcount.analyze.checkpoints.tensors import Checkpoint, StoredTensor, check_shape, require
from paramcount.core.errors import InputFileError

__all__ = ["read"]


_MAX_LAYERS = 1 << 16  # a block count beyond is a damaged header (the layout rules walk them)

# the tokenizer keys a table may read (the rest, the vocabulary itself, are never decoded)
_TOKENIZER = ("tokenizer.ggml.model", "tokenizer.ggml.padding_token_id")


def _decoded(key: str) -> bool:
    """Whether a metadata key is decoded: all but the tokenizer's vocabulary and merges, which
    are stepped over (a value decoded is refused past 16 MB, before it is read)."""
    return not key.startswith("tokenizer.ggml.") or key in _TOKENIZER


def read(path: Path) -> Checkpoint:
    """The file's tensors, and the transformers config its metadata give (None when they do
    not give the family's, the reason in ``metadata["no config"]``: then the config.json
    beside the file, or ``--config``, must)."""
    header = read_header(path, _decoded)
    meta = header.metadata
    arch = meta.get("general.architecture")
    table = TABLES.get(arch) if isinstance(arch, str) else None
    if table is None:
        raise InputFileError(f"{path}: GGUF architecture {arch!r} has no name table in "
                             f"paramcount; known: {', '.join(sorted(TABLES))}")
    assert isinstance(arch, str)
    names = _candidates(gguf_arch(arch), header.tensors, path)
    tensors = []
    for t in header.tensors:
        shape = check_shape(str(path), t.name, list(reversed(t.ne)))
        n = 1
        for d in shape:
            n *= d
        kind = t.kind
        first, *rest = _hf_names(table, names, t.name) or [t.name]
        tensors.append(StoredTensor(t.name, kind, shape, gguf_bytes(kind, n), n,
                                    logical_name=first, alternatives=tuple(rest)))
    tensors = _fused(table, tensors)
    config, why = None, f"{path}: the GGUF metadata of {arch!r} do not give its config"
    if table.config is not None:
        try:
            config = _config(table, arch, meta, tensors, path)
        except InputFileError as exc:
            why = str(exc)
    ftype = meta.get("general.file_type")
    quant = sorted({t.dtype for t in tensors if t.dtype not in ("F32", "F16", "BF16")})
    return Checkpoint(str(path), "GGUF", tuple(tensors), (path.name,), config=config,
                      config_where=f"{path} (GGUF metadata)" if config else None,
                      metadata={"general.architecture": arch, "general.file_type": ftype or 0,
                                **({} if config else {"no config": why})},
                      quantization=", ".join(quant))


def gguf_arch(arch: str):
    """gguf's ``MODEL_ARCH`` member for a ``general.architecture`` string."""
    gguf = require("gguf", "a GGUF checkpoint")
    found = [a for a, n in gguf.MODEL_ARCH_NAMES.items() if n == arch]
    if not found:  # an older gguf package than the one the tables were declared against
        raise InputFileError(f"the installed gguf package ({getattr(gguf, '__version__', '?')}) "
                             f"declares no architecture {arch!r}: pip install -U gguf")
    return found[0]


class Names:
    """GGUF base name (``blk.3.attn_q``) → the transformers names llama.cpp converts it from,
    in ``gguf.TensorNameMap``'s order: gguf's own map for ``arch`` and ``blocks`` blocks,
    inverted. gguf's ``get_tensor_name_map`` names every block (a file naming block 65,535:
    17.7 M names, 36 s, 2.5 GB); here its loop over blocks runs once with the block number left
    a placeholder, formatted for the block a name asks about (``tests/`` checks the two agree)."""

    def __init__(self, arch, blocks: int):
        gguf = require("gguf", "a GGUF checkpoint")
        flat = gguf.get_tensor_name_map(arch, 0)  # outside blocks (and the arch's block names
        # joined to gguf's table, as its constructor does); then its loop over blocks, once
        mapping = {hf: (name, False) for hf, (_, name) in flat.mapping.items()}
        for tensor, keys in flat.block_mappings_cfg.items() if blocks else ():
            if tensor in gguf.MODEL_TENSORS[arch]:
                name = gguf.TENSOR_NAMES[tensor]
                mapping.update({k: (name, True) for k in (name, *keys)})
        self.blocks = blocks
        self._names: dict[str, list[tuple[str, bool]]] = {}  # (key, formatted per block)
        for hf, (name, per_block) in mapping.items():
            if hf != name:
                self._names.setdefault(name, []).append((hf, per_block))

    def get(self, name: str) -> list[str]:
        """The transformers names for ``name`` (none: an empty list)."""
        for m in re.finditer(r"\d+", name):  # a block's name: its number, and its template
            found = self._names.get(f"{name[:m.start()]}{{bid}}{name[m.end():]}")
            bid = int(m.group())
            if found is not None and str(bid) == m.group() and bid < self.blocks:
                return [k.format(bid=bid) if b else k for k, b in found]
        found = self._names.get(name, [])
        out: dict[str, None] = {}  # a name outside blocks converted from a key in every block
        for bid in range(self.blocks) if any(b for _, b in found) else (0,):  # (ChatGLM's
            out.update((k.format(bid=bid) if b else k, None) for k, b in found)  # rope_freqs)
        return list(out)


def candidates(arch, blocks: int) -> Names:
    """gguf's name map for ``arch`` at ``blocks`` blocks, inverted: :class:`Names`."""
    return Names(arch, blocks)


def _candidates(arch, tensors, path: Path) -> Names:
    blocks = [int(m.group(1)) for t in tensors if (m := _BLOCK.match(t.name))]
    if max(blocks, default=0) >= _MAX_LAYERS:  # gguf's map would name every block up to it
        raise InputFileError(f"{path}: GGUF tensor of block {max(blocks):,}: a damaged header "
                             f"(at most {_MAX_LAYERS:,} blocks)")
    return candidates(arch, max(blocks, default=-1) + 1)


_BLOCK = re.compile(r"^(?:enc\.|dec\.)?blk\.(\d+)\.")  # T5's stacks: enc.blk.N, dec.blk.N


def _hf_names(table: GGUFTable, names: Names, name: str) -> list[str]:
    """The transformers names a GGUF tensor may stand for: the table's override, or gguf's
    map's candidates (a suffix ``.weight`` / ``.bias`` kept); none: unclaimed, named as such."""
    found = [re.sub(p, t, name) for p, t in table.names if re.search(p, name)][:1]
    base, dot, suffix = name.rpartition(".")
    if not found and dot and suffix in ("weight", "bias"):
        found = [f"{c}.{suffix}" for c in names.get(base)]
    found = found or names.get(name)
    for hub, ours in table.prefix:  # the transformers 5 name first, the hub's kept
        found = [ours + c.removeprefix(hub) for c in found if c.startswith(hub)] + found
    return found


def resolved(table: GGUFTable, arch, family, hparams) -> list[tuple[str, str, str]]:
    """(GGUF name, transformers name) for block 0 of every tensor gguf declares for ``arch``,
    as :func:`read` and the attribution resolve them against ``family``'s tree at ``hparams``
    (the report's table), with the leaf each lands on; a name no leaf with a count claims is
    left out, a joined pair shown as one. Names without their ``.weight``, as gguf's map
    declares them (a weight's ``.bias`` lands on the same leaf)."""
    from paramcount.analyze.checkpoints.check import chosen_names

    gguf = require("gguf", "a GGUF checkpoint")
    names = candidates(arch, 1)
    rows = []
    for t in gguf.MODEL_TENSORS[arch]:  # a weight, or (overridden) a bias: shown as named
        base = gguf.TENSOR_NAMES[t].format(bid=0)
        for name in (f"{base}.weight", f"{base}.bias"):
            over = any(re.search(p, name) for p, _ in table.names)
            hf = _hf_names(table, names, name)
            if hf and (over or name.endswith(".weight")):
                rows.append((name if over else base, hf if over else
                             [h.removesuffix(".weight") for h in hf]))
    for first, second, target, _ in table.fuse:
        a, b = (x.removesuffix(".weight") for x in (first, second))
        rows = [r for r in rows if r[0] not in (f"blk.0.{a}", f"blk.0.{b}", f"blk.0.{first}")]
        rows.append((f"blk.0.{a} + blk.0.{b}", [target.format(bid=0)]))
    return chosen_names(rows, family, hparams)


def _fused(table: GGUFTable, tensors: list[StoredTensor]) -> list[StoredTensor]:
    """Pieces llama.cpp stores apart that transformers holds as one tensor, joined (shapes
    only): concatenated along ``axis``, or (axis None: a piece transposed) flattened. Partners
    found by name (unique: the header refuses a duplicate), in one pass (a scan for each was
    quadratic: 65,536 tensors took minutes)."""
    out = list(tensors)
    for first, second, target, axis in table.fuse:
        by_name = {t.name: t for t in out}
        replaced: dict[str, StoredTensor | None] = {}  # a piece → the joined tensor, or None
        for a in [t for t in out if re.fullmatch(rf"blk\.\d+\.{re.escape(first)}", t.name)]:
            bid = a.name.split(".")[1]
            b = by_name.get(f"blk.{bid}.{second}")
            if b is None:
                continue
            if axis is not None and len(a.shape) == len(b.shape):
                shape = list(a.shape)
                shape[axis] += b.shape[axis]
            else:
                shape = [a.numel + b.numel]
            joined = StoredTensor(f"{a.name}+{b.name}", a.dtype if a.dtype == b.dtype else
                                  f"{a.dtype}+{b.dtype}", tuple(shape), a.nbytes + b.nbytes,
                                  a.logical + b.logical, logical_name=target.format(bid=bid))
            replaced[a.name], replaced[b.name] = joined, None
        out = [r for t in out if (r := replaced.get(t.name, t)) is not None]
    return out


def _config(table: GGUFTable, arch: str, meta: dict, tensors: list[StoredTensor],
            path: Path) -> dict:
    """The transformers config the metadata describe."""
    cfg: dict = {}
    for key, hf_key in (table.config or {}).items():
        v = meta.get(f"{arch}.{key}")
        if isinstance(v, int) and not isinstance(v, bool):
            *outer, last = hf_key.split(".")  # DBRX's nested ffn_config.moe_num_experts
            node = cfg
            for k in outer:
                node = node.setdefault(k, {})
            node[last] = v
    for key in ("embedding_length", "block_count"):
        if f"{arch}.{key}" not in meta:
            raise InputFileError(f"{path}: GGUF metadata has no {arch}.{key}")
    layers = meta[f"{arch}.block_count"]
    if not isinstance(layers, int) or isinstance(layers, bool) or not 0 < layers <= _MAX_LAYERS:
        raise InputFileError(f"{path}: GGUF metadata {arch}.block_count = {layers!r}: expected a "
                             f"number of blocks between 1 and {_MAX_LAYERS:,}")
    emb = next((t for t in tensors if t.name == "token_embd.weight"), None)
    if emb is None or len(emb.shape) != 2:
        raise InputFileError(f"{path}: no 2-D token_embd.weight, which gives the vocabulary")
    cfg["vocab_size"] = emb.shape[0]
    cfg["tie_word_embeddings"] = not any(t.name == "output.weight" for t in tensors)
    names = {t.name for t in tensors} | {n for t in tensors for n in t.name.split("+")}
    # a block's tensor in any block (a hybrid's Mamba biases are not in an attention block 0)
    blocks = {n.split(".", 2)[2] for n in names if _BLOCK.match(n) and n.count(".") >= 2}
    cfg.update({key: name in names or (name.startswith("blk.0.") and name[6:] in blocks)
                for name, key in table.present})
    model_type, cls = table.model_type, table.hf_class
    if table.moe:  # a dense model, or a mixture of experts converted under its name
        if cfg.get("num_local_experts"):
            model_type, cls = table.moe
        else:
            cfg.pop("num_local_experts", None)
            cfg.pop("num_experts_per_tok", None)
    out = {"model_type": model_type, "architectures": [cls], **cfg}
    if table.derive is not None:  # what no one key holds: the table's own rule
        own = {k.removeprefix(f"{arch}."): v for k, v in meta.items()}
        try:
            out.update(table.derive(own, {t.name: t.shape for t in tensors}))
        except (KeyError, IndexError, TypeError, ValueError, AttributeError,
                ZeroDivisionError) as exc:  # a key absent, or a value of another kind
            raise InputFileError(f"{path}: GGUF metadata lack what {arch!r} needs ({exc})") from None
    return out
