"""``python -m experiments train-listener``: its data checks, its tokens, and one tiny training run.

The unit tests need no model (the tokenizer tests read only the embedded model's
tokenizer). The end-to-end test trains LoRA adapters on the embedded SmolLM2-135M on
the CPU for two steps of two examples, then loads the merged folder the way
HandRaiser's ``learned`` policy does (``TransformersBackend(model=OUT)``) and asks it a
one-token ``listen`` request. Full fine-tuning (the default) and LoRA on Text Pictionary
and Meeting Scheduling trees run on a tiny random 2-layer Llama with the SmolLM2
tokenizer (``bench/tiny_model.py``), built once per module. Work is bounded by steps,
never by wall-clock.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from debate_core.backends.base import GenerationRequest, Message, SamplingParams, Signals
from debate_core.kernel.policies import parse_decision
from experiments.cli import main
from experiments.workers import ExperimentError
from protocols.handraiser.study.listener_data import parse_line, read_data, split
from protocols.handraiser.study.train_listener import Settings, check_out, encode, train

SYSTEM = "You are the moderator of a debate between Pro and Con."


def line(answer: str = "Yes", partial: str = "I have said this before.", **extra) -> str:
    user = (
        "Question:\nIs the sky blue?\n\nPro argues that the answer is yes. Con argues that it is no.\n\n"
        f'Pro is speaking now. What you have heard so far:\n"{partial}"\n\n'
        "Have you heard enough from Pro to cut them off now? Answer with one word, Yes or No."
    )
    messages = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": user},
        {"role": "assistant", "content": answer},
    ]
    return json.dumps({"messages": messages, "label": answer, "meta": {"node": 1}} | extra)


def write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def tokenizer():
    from transformers import AutoTokenizer

    from debate_core.backends.hf.embedded import embedded_model_dir

    return AutoTokenizer.from_pretrained(str(embedded_model_dir()))


# -- the data ------------------------------------------------------------------------


def test_reads_examples_with_their_files_hash_and_count(tmp_path):
    path = write(tmp_path / "a.jsonl", [line("Yes"), "", line("No")])
    examples, files = read_data([path])
    assert [e.label for e in examples] == ["Yes", "No"]
    assert examples[1].where == f"{path}:3" and examples[0].messages[0] == Message("system", SYSTEM)
    assert files[0]["examples"] == 2 and len(files[0]["sha256"]) == 64


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("{not json", "not valid JSON"),
        ('["a list"]', '"messages"'),
        (json.dumps({"messages": [{"role": "user", "content": "hi"}]}), '"messages"'),
        (json.dumps({"messages": [{"role": "user", "content": "q"}, {"role": "user", "content": "Yes"}]}), '"Yes"'),
        (json.dumps({"messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "yes"}]}), "Yes"),
        (json.dumps({"messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "Maybe"}]}), "No"),
        (json.dumps({"messages": [{"role": "robot", "content": "q"}, {"role": "assistant", "content": "No"}]}), "role"),
        (json.dumps({"messages": [{"role": "user", "content": 3}, {"role": "assistant", "content": "No"}]}), "content"),
        (line("Yes", label="No"), "differs"),
    ],
)
def test_a_bad_line_is_refused_naming_its_line(tmp_path, text, says):
    path = write(tmp_path / "d.jsonl", [line("Yes"), text])
    with pytest.raises(ExperimentError, match=f"d.jsonl:2: .*{says}"):
        read_data([path])


def test_missing_or_empty_data_is_refused(tmp_path):
    with pytest.raises(ExperimentError, match="no data file"):
        read_data([tmp_path / "absent.jsonl"])
    with pytest.raises(ExperimentError, match="has no examples"):
        read_data([write(tmp_path / "blank.jsonl", ["", "   "])])
    with pytest.raises(ExperimentError, match="no data"):
        read_data([])


def test_a_non_empty_output_folder_needs_overwrite(tmp_path):
    check_out(tmp_path / "new", overwrite=False)
    (tmp_path / "empty").mkdir()
    check_out(tmp_path / "empty", overwrite=False)
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    with pytest.raises(ExperimentError, match="--overwrite"):
        check_out(tmp_path / "full", overwrite=False)
    check_out(tmp_path / "full", overwrite=True)
    (tmp_path / "file").write_text("x")
    with pytest.raises(ExperimentError, match="is a file"):
        check_out(tmp_path / "file", overwrite=True)


def test_the_cli_reports_bad_input_in_one_line(tmp_path, capsys):
    data = write(tmp_path / "d.jsonl", [line("Yes"), "{oops"])
    assert main(["train-listener", "--data", str(data), "--out", str(tmp_path / "out")]) == 2
    out = capsys.readouterr().out
    assert "error:" in out and "d.jsonl:2" in out and "Traceback" not in out
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "x").write_text("x")
    assert main(["train-listener", "--data", str(data), "--out", str(tmp_path / "busy")]) == 2
    assert "not empty" in capsys.readouterr().out


def test_the_split_holds_out_each_label(tmp_path):
    examples = [parse_line(line("Yes" if i < 10 else "No"), f"x:{i}") for i in range(30)]
    train_set, held = split(examples, 0.2, seed=0)
    assert sorted(e.label for e in held) == ["No"] * 4 + ["Yes"] * 2
    assert len(train_set) == 24 and not {e.where for e in held} & {e.where for e in train_set}
    assert split(examples, 0.2, seed=0) == (train_set, held)
    assert split(examples[:1], 0.9, seed=0)[0] == examples[:1]  # something is always left to train on
    with pytest.raises(ExperimentError, match="eval-fraction"):
        split(examples, 1.0, seed=0)


# -- the tokens ----------------------------------------------------------------------


def test_training_sees_the_prompt_tokens_the_backend_sends(tokenizer):
    from debate_core.backends.hf.prompt import tokenize_prompt

    example = parse_line(line("No"), "x:1")
    encoded = encode(tokenizer, example, max_length=4096)
    request = GenerationRequest(example.messages, SamplingParams(0.3, 1), "listen", "moderator", 7)
    assert encoded.prompt == tokenize_prompt(tokenizer, request).ids
    assert encoded.answer == tokenizer.encode("No", add_special_tokens=False) and not encoded.truncated
    assert tokenizer.decode(encoded.prompt).endswith("Yes or No.<|im_end|>\n<|im_start|>assistant\n")


def test_long_prompts_lose_their_start(tokenizer):
    example = parse_line(line("Yes"), "x:1")
    full = encode(tokenizer, example, max_length=4096)
    short = encode(tokenizer, example, max_length=41)
    assert short.truncated and len(short.prompt) + len(short.answer) == 41
    assert short.prompt == full.prompt[-len(short.prompt) :]
    with pytest.raises(ExperimentError, match="no room"):
        encode(tokenizer, example, max_length=1)


# -- one tiny training run -------------------------------------------------------------


def test_two_steps_on_the_embedded_model_give_a_listener_the_backend_loads(tmp_path):
    import torch
    from safetensors import safe_open

    from debate_core.backends.hf import TransformersBackend
    from debate_core.backends.hf.embedded import embedded_model_dir

    rows = [line("Yes", "I repeat myself once more.")] * 3 + [line("No", "Here is new evidence.")] * 3
    data = write(tmp_path / "tiny.jsonl", rows)
    out = tmp_path / "listener"
    settings = Settings(
        data=[str(data)], out=str(out), steps=2, batch_size=2, eval_fraction=0.34, device="cpu", lora=True
    )
    with torch.no_grad():  # as a loaded backend leaves the process: training turns gradients back on itself
        record = train(settings, log=lambda _: None)

    saved = json.loads((out / "listener.json").read_text())
    assert saved["examples"] == {"total": 6, "train": 4, "eval": 2} == record["examples"]
    assert saved["labels"]["train"] == {"Yes": 2, "No": 2} and saved["labels"]["eval"] == {"Yes": 1, "No": 1}
    assert saved["data"][0]["sha256"] and saved["steps"] == 2 and len(saved["losses"]) == 2
    assert set(saved["eval"]) == {"before", "after"} and saved["eval"]["after"]["examples"] == 2
    assert saved["settings"]["lora_r"] == 16 and saved["seconds"]["train"] > 0
    assert saved["method"] == "lora" and saved["settings"]["lr"] == 2e-4

    name = "model.layers.0.self_attn.q_proj.weight"  # a LoRA target, merged into the base
    with (
        safe_open(str(embedded_model_dir() / "model.safetensors"), "pt") as base,
        safe_open(str(out / "model.safetensors"), "pt") as merged,
    ):
        names = set(merged.keys())  # a plain model: no adapter or peft-prefixed tensors
        assert name in names and not [k for k in names if "lora" in k or k.startswith("base_model.")]
        assert not torch.equal(base.get_tensor(name), merged.get_tensor(name))
        assert torch.equal(base.get_tensor("model.norm.weight"), merged.get_tensor("model.norm.weight"))

    backend = TransformersBackend(model=str(out))
    try:
        messages = parse_line(rows[0], "x:1").messages
        request = GenerationRequest(
            messages, SamplingParams(0.0, 1, 0), "listen", "moderator", 1, signals=Signals(choices=("Yes", "No"))
        )
        (completion,) = backend.generate([request])
    finally:
        backend.close()
    assert completion.completion_tokens == 1 and completion.text.strip() in ("Yes", "No")
    parse_decision(completion.text, with_text=False)
    assert completion.choice_probs is not None and 0 < sum(completion.choice_probs.values()) <= 1 + 1e-6


# -- any task's trees, full fine-tuning or LoRA, on a tiny model ------------------------


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    import importlib.util

    source = Path(__file__).resolve().parents[3] / "bench" / "tiny_model.py"
    spec = importlib.util.spec_from_file_location("tiny_model", source)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return Path(module.build(tmp_path_factory.mktemp("tiny") / "model"))


@pytest.fixture(scope="module")
def trees(tmp_path_factory) -> dict[str, Path]:
    """A few labelled nodes of Text Pictionary and of Meeting Scheduling, sampled on the scripted backend."""
    folder = tmp_path_factory.mktemp("trees")
    small = ["--cases", "2", "--rollouts", "2", "--max-nodes", "2", "--branch-size", "2", "--backend", "scripted"]
    found = {}
    for task in ("pictionary", "scheduling"):
        out = folder / f"{task}.jsonl"
        argv = ["tree-sample", "--experiment", task, "--protocol", task, "--db", str(folder / "t.sqlite3")]
        assert main([*argv, "--out", str(out), "--no-progress", *small]) == 0
        found[task] = out
    return found


@pytest.mark.parametrize("task", ["pictionary", "scheduling"])
def test_full_fine_tuning_is_the_default_and_trains_every_weight_on_any_tasks_trees(tmp_path, tiny, trees, task):
    import torch
    from safetensors import safe_open

    out = tmp_path / "listener"
    argv = ["train-listener", "--data", str(trees[task]), "--out", str(out), "--base", str(tiny)]
    assert main([*argv, "--steps", "2", "--batch-size", "2", "--device", "cpu", "--eval-fraction", "0"]) == 0
    saved = json.loads((out / "listener.json").read_text())
    assert saved["method"] == "full" and saved["settings"]["lora"] is False and saved["settings"]["lr"] == 1e-5
    assert "peft" not in saved["versions"] and len(saved["losses"]) == 2
    with (
        safe_open(str(tiny / "model.safetensors"), "pt") as base,
        safe_open(str(out / "model.safetensors"), "pt") as new,
    ):
        names = set(new.keys())
        assert not [k for k in names if "lora" in k]
        for name in ("model.norm.weight", "model.layers.1.mlp.down_proj.weight"):  # not a LoRA target: all trained
            assert not torch.equal(base.get_tensor(name).float(), new.get_tensor(name).float())


def test_lora_on_the_tiny_model_leaves_the_norms_as_they_were(tmp_path, tiny, trees):
    import torch
    from safetensors import safe_open

    from debate_core.backends.hf import TransformersBackend

    out = tmp_path / "listener"
    argv = ["train-listener", "--data", str(trees["pictionary"]), str(trees["scheduling"]), "--out", str(out)]
    argv += ["--base", str(tiny), "--lora", "--steps", "2", "--batch-size", "2", "--device", "cpu"]
    assert main(argv) == 0
    saved = json.loads((out / "listener.json").read_text())
    assert saved["method"] == "lora" and len(saved["data"]) == 2
    with (
        safe_open(str(tiny / "model.safetensors"), "pt") as base,
        safe_open(str(out / "model.safetensors"), "pt") as new,
    ):
        assert torch.equal(base.get_tensor("model.norm.weight").float(), new.get_tensor("model.norm.weight").float())
    backend = TransformersBackend(model=str(out))  # HandRaiser's learned listener=OUT loads it
    try:
        assert backend.count_tokens("Yes") >= 1
    finally:
        backend.close()
