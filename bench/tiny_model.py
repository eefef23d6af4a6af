"""Build a tiny random-weight Llama model with the embedded SmolLM2 tokenizer, for device checks.

What it does: loads the embedded SmolLM2-135M's tokenizer and chat template
(``debate_core.backends.hf.embedded``: the GGUF converted once into the model
cache), builds a ``LlamaForCausalLM`` of 2 layers, hidden size 64, 4 query
heads and 2 key/value heads (grouped-query attention, as SmolLM2 has), with
random weights from a fixed seed, and saves it with ``save_pretrained`` in
float16 (about 6 MB: the 49,152-token embedding dominates, tied to the output
head). Its replies are noise, which is the point: a debate on it exercises
every fallback for unusable replies, the batching, padding, prefix reuse and
attention code of the transformers backend, cheaply, on any device.

    python bench/tiny_model.py [--out .tiny-model] [--layers 2] [--hidden 64]

The output folder is a build product: keep it out of git (``.git/info/exclude``).
``bench/gpu_check.py --model .tiny-model`` runs the protocols on it.
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path


def build(out: Path, layers: int = 2, hidden: int = 64, heads: int = 4, kv_heads: int = 2, seed: int = 0) -> Path:
    import torch
    from transformers import AutoTokenizer, GenerationConfig, LlamaConfig, LlamaForCausalLM

    from debate_core.backends.hf.embedded import embedded_model_dir

    source = embedded_model_dir()
    tokenizer = AutoTokenizer.from_pretrained(str(source))
    base = GenerationConfig.from_pretrained(str(source))
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=hidden,
        intermediate_size=hidden * 2,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        num_key_value_heads=kv_heads,
        head_dim=hidden // heads,
        max_position_embeddings=8192,
        rms_norm_eps=1e-5,
        rope_parameters={"rope_theta": 100000.0, "rope_type": "default"},
        tie_word_embeddings=True,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=base.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    torch.manual_seed(seed)
    model = LlamaForCausalLM(config).to(torch.float16)
    model.generation_config = base
    if out.exists():
        shutil.rmtree(out)
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=".tiny-model")
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--kv-heads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    out = build(Path(args.out), args.layers, args.hidden, args.heads, args.kv_heads, args.seed)
    size = sum(f.stat().st_size for f in out.iterdir()) / 2**20
    print(f"wrote {out} ({size:.1f} MiB): {', '.join(sorted(f.name for f in out.iterdir()))}")


if __name__ == "__main__":
    main()
