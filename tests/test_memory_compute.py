"""Memory and compute on the command line and in the report: ``count --context``, ``solve
--memory``, what the proof record lets them claim, the dtypes, and the report's page. (The
trees themselves against transformers' measurement: tests/test_costs.py.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paramcount.analyze import costs
from paramcount.analyze.prove import record
from paramcount.analyze.prove.results import ArchProof, CaseProof
from paramcount.cli import fast
from paramcount.cli.main import main
from paramcount.model import dtypes, registry
from tests._shared import needs_transformers

CONFIGS = Path(__file__).resolve().parent / "configs"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_count_context_gives_the_cache_flops_and_weight_bytes(capsys):
    # Llama-3-8B at T = 4096, B = 2: 2·L·B·T·M_kv·d_k = 2·32·2·4096·8·128 elements, 1 GiB in bf16
    code, out, _ = run(capsys, "count", "llama3", "--preset", "llama3_8b_en", "--context", "4096",
                       "--batch", "2", "--json")
    assert code == 0
    data = json.loads(out)
    c = data["costs"]
    assert (c["context"], c["batch"], c["dtype"]) == (4096, 2, "bf16")
    assert c["kv"]["elements"] == 2 * 32 * 2 * 4096 * 8 * 128 == 536_870_912
    assert c["kv"]["bytes"] == 1 << 30
    assert c["weights"] == {"bytes": 2 * data["total"], "exact": True,
                            "parameters": data["total"], "dtype": "bfloat16"}
    assert c["kv"]["status"] in ("proven", "not proven") and c["flops"]["status"] == c["kv"]["status"]
    # the breakdown sums to the total, each component's FLOPs 2·B·T per multiply-accumulate
    flops = c["flops"]
    assert flops["components"]["head"] == 2 * 2 * 4096 * 4096 * 128_256
    assert "T^2" in flops["formula"]


def test_count_context_weighs_every_weight_as_the_count_does(capsys):
    """The weights' bytes under ``--context`` are those of every weight the model holds, the
    non-trainable ones too (DeepSeek-V3's routers' score-correction biases, 14,848 of them), the
    same figure as the count's own "weights in bf16" (it once left them out: two figures)."""
    code, out, _ = run(capsys, "count", "--config", str(CONFIGS / "deepseek-v3.json"),
                       "--context", "64", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["nontrainable"] == 14_848
    assert data["costs"]["weights"]["parameters"] == data["total"] + data["nontrainable"]
    assert data["costs"]["weights"]["bytes"] == data["context"]["bytes"]["bf16"] == 1_342_052_838_400



def test_the_cache_a_latent_or_grouped_attention_saves_is_a_named_convention_beside_it(capsys):
    """DeepSeek-V3 caches its latent, r_kv + d_rope = 576 per token and layer; every query head
    keeping its own decompressed key (d_nope + d_rope = 192) and value (128) would cache
    128·320 = 40,960: the saving shown beside the measured figure, as a named convention (a
    grouped-query Llama's too; a class keeping one key and value per head shows none)."""
    code, out, _ = run(capsys, "count", "--config", str(CONFIGS / "deepseek-v3.json"),
                       "--context", "4096", "--json")
    assert code == 0
    kv = json.loads(out)["costs"]["kv"]
    assert kv["elements"] == 61 * 4096 * (512 + 64)
    assert kv["conventions"]["per_head"]["total"] == 61 * 4096 * 128 * (192 + 128)
    assert "not a measurement" in kv["conventions"]["per_head"]["meaning"]
    code, out, _ = run(capsys, "count", "llama3", "--preset", "llama3_8b_en", "--context", "4096")
    assert code == 0
    line = next(x for x in out.splitlines() if "per head, decompressed (a convention)" in x)
    assert f"{32 * 4096 * 32 * 256:,}" in line and f"keeps {32 * 4096 * (32 - 8) * 256:,} fewer" in line
    code, out, _ = run(capsys, "count", "gpt2_causal_lm", "--preset", "gpt2_base_en", "--context",
                       "64", "--json")
    assert code == 0 and "conventions" not in json.loads(out)["costs"]["kv"]

def test_count_context_gpt2_forward_flops_as_flopcountermode_counts(capsys):
    # the figure a new user measured with torch's FlopCounterMode on GPT-2 at T = 1024
    code, out, _ = run(capsys, "count", "gpt2_causal_lm", "--preset", "gpt2_base_en",
                       "--context", "1024", "--json")
    assert code == 0
    assert json.loads(out)["costs"]["flops"]["total"] == 291_648_307_200


def test_count_context_text_says_what_stands_behind_each_figure(capsys):
    code, out, _ = run(capsys, "count", "llama3", "--preset", "llama3_8b_en", "--context", "8192")
    assert code == 0
    assert "memory and compute at T=8,192 tokens × B=1" in out
    assert out.count("proven for all hyperparameters") + out.count("not proven") == 3


@pytest.mark.parametrize("argv, says", [
    (["--batch", "2"], "--batch and --dtype go with --context T"),
    (["--dtype", "bf16"], "--batch and --dtype go with --context T"),
    (["--context", "0"], "expected a positive integer"),
    (["--context", "1e3"], "expected a positive integer"),
    (["--context", "8", "--dtype", "fp7"], "fp7"),
])
def test_count_context_bad_input_is_one_line_and_status_2(capsys, argv, says):
    code, out, err = run(capsys, "count", "llama3", "--preset", "llama3_8b_en", *argv)
    assert code == 2 and out == ""
    assert says in err and len(err.strip().splitlines()) == 1


def test_the_plain_count_parser_leaves_memory_and_compute_to_its_own():
    # (parse_costs reads --context: tests/test_compiled_costs.py)
    assert fast.parse(["count", "gpt2", "--preset", "gpt2_base_en"]) is not None
    assert fast.parse(["count", "gpt2", "--preset", "gpt2_base_en", "--context", "8"]) is None


def _record(tmp_path, status: str, key: str | None = None):
    arch = registry.get("llama3")
    case = CaseProof("llama3", "(no options)", status, ("L",), (), {}, {}, {}, 2, 0.0, 1, 0.0, (),
                     "at L=2: blocks +1" if status == "refuted" else "")
    entry = record._entry(ArchProof("llama3", (case,)), key or record.key(arch.id, "kv"))
    path = tmp_path / "proofs.json"
    path.write_text(record.dumps({}, {}, {"kv": {"llama3": entry}}), encoding="utf-8")
    return path


def test_what_the_record_says_is_what_is_claimed(tmp_path):
    assert record.recorded("llama3", "kv", _record(tmp_path, "proven")) == ("proven", "")
    assert record.recorded("llama3", "kv", _record(tmp_path, "refuted"))[0] == "refuted"
    stale = record.recorded("llama3", "kv", _record(tmp_path, "proven", key="0" * 16))
    assert stale == ("not proven", "the recorded proof is of another formula or source")
    assert record.recorded("llama3", "kv", None)[0] == "not proven"


def test_a_refuted_formula_prints_no_number():
    arch = registry.get("llama3")
    hp = arch.resolve(dict(arch.preset("llama3_8b_en").hparams))
    c = costs.evaluate(arch, hp, 128, 1, dtypes.get("bf16"), arch.count(hp),
                       {"kv": ("refuted", "at L=2: cache +1"), "flops": ("proven", "")})
    assert c.quantities["kv"].total is None and c.kv_bytes is None
    assert c.quantities["kv"].why == "at L=2: cache +1"
    assert c.quantities["flops"].total is not None


def test_a_model_without_a_transformers_reference_has_no_cost_formula():
    arch = registry.get("gpt2")  # the backbone is built by Keras and transformers; the paper's
    assert costs.formulated(arch, "kv") is None  # LMs by Keras alone
    paper = registry.get("ffnn_lm")
    assert costs.formulated(paper, "kv") == "no transformers reference to measure it against"


def test_solve_memory_finds_the_longest_context_that_fits(capsys):
    code, out, _ = run(capsys, "solve", "llama3", "--preset", "llama3_8b_en", "--memory", "80GB",
                       "--for", "T", "--json")
    assert code == 0
    sol = json.loads(out)
    n = registry.get("llama3").count(registry.get("llama3").resolve(
        dict(registry.get("llama3").preset("llama3_8b_en").hparams)))
    per_token = 2 * 32 * 8 * 128 * 2  # keys and values of 32 layers, 8 heads of 128, bf16

    def used(t):
        return 2 * n + per_token * t

    t = sol["value"]
    assert used(t) == sol["bytes"] <= 80 * 10**9 < used(t + 1) == sol["next_bytes"]
    assert sol["not_counted"].startswith("activations")


def test_solve_memory_for_the_batch_and_when_nothing_fits(capsys):
    code, out, _ = run(capsys, "solve", "llama3", "--preset", "llama3_8b_en", "--memory", "80GiB",
                       "--for", "B", "--context", "8192", "--json")
    assert code == 0 and json.loads(out)["value"] == 65
    code, out, _ = run(capsys, "solve", "llama3", "--preset", "llama3_8b_en", "--memory", "8GB",
                       "--for", "T")
    assert code == 0 and "nothing fits" in out


@pytest.mark.parametrize("argv, says", [
    (["--memory", "8XB", "--for", "T"], "expected bytes such as"),
    (["--memory", "0.5B", "--for", "T"], "whole number of bytes"),
    (["--memory", "80GB", "--for", "d_e"], "finds T (the context) or B (the batch)"),
    (["--memory", "80GB", "--for", "B"], "needs --context T"),
    (["--for", "T"], "one of --target N (parameters) or --memory BYTES"),
    (["--target", "7B", "--for", "L", "--context", "8"], "go with --memory"),
])
def test_solve_memory_bad_input(capsys, argv, says):
    code, out, err = run(capsys, "solve", "llama3", "--preset", "llama3_8b_en", *argv)
    assert code == 2 and out == ""
    assert says in err and len(err.strip().splitlines()) == 1


def test_dtypes():
    assert dtypes.get("float16").name == "fp16" and dtypes.get("BF16").name == "bf16"
    arch = registry.get("llama3")
    hp = arch.resolve(dict(arch.preset("llama3_8b_en").hparams))
    n = arch.count(hp)
    assert dtypes.weight_bytes(arch, hp, n, dtypes.get("fp32")) == (4 * n, True)
    size, exact = dtypes.weight_bytes(arch, hp, n, dtypes.get("int4"))
    assert not exact and n // 2 < size < 2 * n  # 4 bits a weight, scales, 16-bit embeddings


def _page(*proven: str):
    """The memory page's text with ``proven`` architectures proven for both quantities, and its
    inputs."""
    from paramcount.output import report_costs
    from paramcount.output.report_pages import Inputs

    def proof(aid):
        return ArchProof(aid, (CaseProof(aid, "(no options)", "proven", (), (), {}, {}, {}, 2,
                                         1e-12, 1, 0.0, (), ""),))

    cp = {q: [proof(a) for a in proven] for q in ("flops", "kv")} if proven else {}
    inp = Inputs([], {}, [], [], "conformance.md", ([], {}), cp)
    return report_costs.section(inp), inp


def test_the_report_page_shows_proven_architectures_at_their_presets():
    from paramcount.output import report_costs

    text, inp = _page("llama3")
    presets = text.split("## How far", 1)[0]
    (row,) = [ln for ln in presets.splitlines() if ln.startswith("| llama3 · llama3_8b_en | 8,030")]
    # 2·L·T·M_kv·d_k·2 bytes at T = 8192: 1 GiB
    assert "| 1 GiB |" in row
    assert "kv_cache.svg" in text
    assert report_costs.tally(inp).startswith(
        "KV cache and forward FLOPs as formulas in T and B: 1 architectures")
    none, _ = _page()
    assert "kv_cache.svg" not in none


def _edited(tmp_path, name: str, **changes) -> str:
    data = json.loads((Path(__file__).parent / "configs" / f"{name}.json").read_text())
    data.update(changes)
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data))
    return str(path)


def test_a_config_whose_layers_differ_from_the_window_pattern_gets_no_cache_figure(capsys, tmp_path):
    # Command R7B: three of four layers in a window; a config listing every layer as full is not
    # the tree's pattern, so its cache is not given (the FLOPs are: attention computes all T keys)
    path = _edited(tmp_path, "c4ai-command-r7b-12-2024", layer_types=["full_attention"] * 32)
    code, out, _ = run(capsys, "count", "--config", path, "--context", "5000", "--json")
    assert code == 0
    kv = json.loads(out)["costs"]["kv"]
    assert kv["status"] == "not formulated" and "total" not in kv
    assert kv["why"].startswith("its layer_types hold 32 full-attention layers of 32")
    code, out, _ = run(capsys, "count", "--config", _edited(tmp_path, "c4ai-command-r7b-12-2024"),
                       "--context", "5000", "--json")
    assert json.loads(out)["costs"]["kv"]["total"] > 0  # as published: the pattern's


def test_qwens_sliding_window_switch_is_not_read_as_full_attention(capsys, tmp_path):
    path = _edited(tmp_path, "qwen2.5-0.5b", use_sliding_window=True)
    code, out, _ = run(capsys, "count", "--config", path, "--context", "40000", "--json")
    assert code == 0
    assert "use_sliding_window is true" in json.loads(out)["costs"]["kv"]["why"]


def test_a_config_sliding_window_must_be_a_positive_integer_or_null(capsys, tmp_path):
    path = _edited(tmp_path, "mistral-7b-v0.1", sliding_window="4096")
    code, out, err = run(capsys, "count", "--config", path, "--context", "8")
    assert code == 2 and out == "" and "sliding_window = \"4096\"" in err
    path = _edited(tmp_path, "mistral-7b-v0.1", sliding_window=None)
    code, out, _ = run(capsys, "count", "--config", path, "--context", "8192", "--json")
    assert json.loads(out)["costs"]["kv"]["total"] == 2 * 32 * 8 * 128 * 8192  # no window


def test_a_cost_proof_runs_beside_torch_whichever_framework_builds_the_parameters():
    # a cost is measured in transformers: a Keras worker would have to start a torch one, which
    # its (daemonic) process may not (the report's cost proofs of Keras-built models all failed)
    from paramcount.analyze import parallel

    assert parallel.proof_side(("llama3", "flops")) == "torch"
    assert parallel.proof_side(("llama3", "kv")) == "torch"
    assert parallel.proof_side(("llama3", "keras")) == "keras"


def test_a_config_of_another_class_than_the_trees_describe_gets_no_cost_figure(capsys):
    # OPTForCausalLM's config reads as OPTModel's parameters (its head is the token table, tied)
    # but its forward multiplies by that head too: check_config found 1.32e12 FLOPs, not 1.01e12
    code, out, _ = run(capsys, "count", "--config", str(Path(__file__).parent / "configs" /
                                                         "opt-125m.json"), "--context", "64", "--json")
    assert code == 0
    costs_json = json.loads(out)["costs"]
    assert "total" not in costs_json["flops"]
    assert costs_json["flops"]["why"] == ("the config's class OPTForCausalLM is not the one the "
                                          "cost trees describe (OPTModel)")
    # (the head keeps no cache: the base model's, 12 layers of keys and values 768 wide)
    assert costs_json["kv"]["total"] == 2 * 12 * 64 * 768


def test_training_memory_conventions_and_accelerates_estimate():
    from paramcount.model.training import accelerate_bytes, training_bytes

    # mixed precision: 2 + 2 + 4 + 4 + 4 bytes a trainable parameter, 2 a non-trainable weight
    assert training_bytes(10, 3) == 166
    assert training_bytes(10, 3, "fp32") == 172
    # accelerate shows the largest of its parts: at bfloat16 the optimizer's 2·(4n), at float32
    # the step's 4·(4n)
    assert accelerate_bytes(1000, "bfloat16") == accelerate_bytes(1000, "float16") == 8000
    assert accelerate_bytes(1000, "float32") == 16000
    with pytest.raises(ValueError):
        accelerate_bytes(1000, "int8")


def test_the_report_page_sets_training_memory_beside_accelerates():
    text, _ = _page("llama3")
    part = text.split("## Training memory", 1)[1]
    (row,) = [ln for ln in part.splitlines() if ln.startswith("| llama3 · llama3_8b_en |")]
    # 8,030,261,248 trainable parameters × 16 bytes = 119.7 GiB; accelerate's 8 bytes: -50 %
    assert "| 8,030,261,248 | 0 | 120 GiB | 59.8 GiB | -50.0 % |" in row


def test_a_published_config_is_costed_whatever_its_proof_keeps_to(capsys):
    """Jamba v0.1 has 4 attention layers and 16 MoE layers. Its cost proofs draw only sets whose
    attention layers the MoE layers' count divides (``prove_within``: the prover's own sub-space).
    `count --config --context` refused the published config with that proof-only constraint."""
    code, out, err = run(capsys, "count", "--config", "tests/configs/jamba-v0.1.json",
                         "--context", "4096", "--json")
    assert code == 0, err
    kv = json.loads(out)["costs"]["kv"]
    # its KV cache is proven where L_moe divides L_att, not at this set: the figure, not the claim
    assert kv["total"] == 38_141_952 and kv["status"] == "not proven"
    assert kv["why"].startswith("proven for all hyperparameters where the proof draws its sets, "
                                "not at this one: L_att (4) must be divisible by L_moe (16)")


# Falcon-7B's KV cache at T = 4,096, B = 2 as transformers allocates it (measured on the meta
# device: reference_models.hf_costs.costs at the falcon_7b preset): 32 layers of one key/value
# head of 64, keys and values, cached as that one head
FALCON_7B_KV = 33_554_432  # 2 (keys, values) · B · T · L · 64


def test_falcon_7b_s_original_layout_caches_its_one_key_value_head(capsys, tmp_path):
    """Falcon-7B's file keeps the original layout: ``multi_query``, one key/value head, cached
    as one. Its table read it as the general layout, whose same weights cache every head's keys
    and values, 71 times as many, and gave no figure; it reads the layout as kv_bcast = 0 now,
    and the figure is transformers' (a file of the general layout: kv_bcast = 1)."""
    code, out, err = run(capsys, "count", "--config", "tests/configs/falcon-7b.json",
                         "--context", "4096", "--batch", "2", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["costs"]["kv"]["total"] == FALCON_7B_KV, data["costs"]["kv"]
    assert data["hparams"]["kv_bcast"] == 0 and data["hparams"]["M_kv"] == 1, data["hparams"]
    general = tmp_path / "config.json"  # the same weights in the general layout's keys
    general.write_text(json.dumps({**json.loads(Path("tests/configs/falcon-7b.json").read_text()),
                                   "new_decoder_architecture": True, "num_kv_heads": 1,
                                   "num_ln_in_parallel_attn": 1}))
    code, out, err = run(capsys, "count", "--config", str(general), "--context", "4096",
                         "--batch", "2", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["hparams"]["kv_bcast"] == 1 and data["total"] == 6_921_720_704, data["hparams"]
    assert data["costs"]["kv"]["total"] == 71 * FALCON_7B_KV


def test_falcon_7b_s_preset_caches_its_one_key_value_head(capsys):
    """The falcon_7b preset is the published Falcon-7B (original layout: kv_bcast = 0); the
    general layout's Falcon-40B caches its 8 key/value heads broadcast to its 128 heads."""
    code, out, err = run(capsys, "count", "falcon_parallel", "--preset", "falcon_7b",
                         "--context", "4096", "--batch", "2", "--json")
    assert code == 0, err
    assert json.loads(out)["costs"]["kv"]["total"] == FALCON_7B_KV
    code, out, err = run(capsys, "count", "falcon_parallel", "--preset", "falcon_40b",
                         "--context", "4096", "--json")
    assert json.loads(out)["costs"]["kv"]["total"] == 2 * 60 * 4096 * 8192


def test_the_memory_page_gives_falcon_7b_s_kv_cache_of_its_own_layout():
    text, _ = _page("falcon_parallel")
    row = next(r for r in text.splitlines() if r.startswith("| falcon_parallel · falcon_7b |"))
    cells = [c.strip() for c in row.split("|")]
    assert cells[4] != "—" and cells[5] != "—", row  # the KV cache at both contexts
    assert "No KV cache is given for falcon_parallel" not in text


def test_solve_memory_answers_from_the_one_head_falcon_7b_caches(capsys):
    """80 GB less Falcon-7B's bf16 weights (13,843,441,408 B), over 2 bytes of 2·32·64 elements
    a position: the longest context that fits (the general layout's cache would be 71 times
    larger a position)."""
    code, out, err = run(capsys, "solve", "falcon_parallel", "--preset", "falcon_7b",
                         "--memory", "80GB", "--for", "T", "--json")
    assert code == 0, err
    assert json.loads(out)["value"] == (80_000_000_000 - 13_843_441_408) // (2 * 2 * 32 * 64)


def test_a_nested_cost_field_is_read_from_the_file(capsys):
    """T5Gemma 2's window is its decoder's (decoder.sliding_window = 512 in the released file).
    The reading looked the dotted key up at the top level, found nothing and took the class's
    4,096: 150,979,584 elements, where transformers' cache holds 95,929,344 (T = 4,096, B = 2:
    3 full and 15 windowed self-attention layers, and the 18 layers' cross-attention keys and
    values of the 4,096-token source, one head of 256)."""
    code, out, err = run(capsys, "count", "--config", str(CONFIGS / "t5gemma-2-270m-270m.json"),
                         "--context", "4096", "--batch", "2", "--json")
    assert code == 0, err
    per_position = 2 * 2 * 256
    assert json.loads(out)["costs"]["kv"]["total"] == per_position * (
        3 * 4096 + 15 * 511 + 18 * 4096) == 95_929_344


def test_layer_types_that_name_mixers_are_no_window_pattern(capsys):
    """Granite 4.0's layer_types name each layer's mixer ("attention", "mamba"), not a window
    ("full_attention", "sliding_attention"): the reading took them for a window pattern with no
    full-attention layer and gave no KV cache. transformers' cache holds 335,544,320 elements
    for Granite-4.0-Micro at T = 4,096, B = 2 (40 attention layers, 8 key/value heads of 64)."""
    code, out, err = run(capsys, "count", "--config", str(CONFIGS / "granite-4.0-micro.json"),
                         "--context", "4096", "--batch", "2", "--json")
    assert code == 0, err
    kv = json.loads(out)["costs"]["kv"]
    # (its proof found no difference, its bound not low enough: the figure, and that status)
    assert kv["total"] == 2 * 2 * 4096 * 40 * 8 * 64 == 335_544_320, kv


def test_an_inconclusive_proof_shows_its_figure_and_says_so(capsys):
    """Mixtral's FLOPs proof found no difference, but its values were kept small (builds
    overflow torch's byte count), so its bound on a false proof is not below 1e-9: inconclusive,
    not refuted. `count --context` printed no forward FLOPs for Mixtral 8x7B at all (while it
    printed the unproven FLOPs per generated token): the figure, with its status."""
    argv = ["count", "mixtral", "--preset", "mixtral_8_7b_en", "--context", "4096", "--json"]
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    flops = json.loads(out)["costs"]["flops"]
    assert flops["status"] == "inconclusive" and flops["total"] > 0, flops
    assert "no difference found" in flops["why"]
    fast_out = fast.try_count(argv)
    if fast_out is not None:  # the compiled path, where it answers, says the same
        assert json.loads(fast_out)["costs"]["flops"] == flops


def test_a_head_s_cost_trees_are_not_said_to_be_proven_by_the_report(capsys):
    """A config of LlamaModel reads as llama:LlamaModel, whose cost trees no report proves: its
    figures said "no proof recorded (paramcount report proves it)", which the report never did."""
    code, out, err = run(capsys, "count", "--config", str(CONFIGS / "llama-3-8b-model.json"),
                         "--context", "4096", "--json")
    assert code == 0, err
    for q in ("kv", "flops"):
        got = json.loads(out)["costs"][q]
        assert got["status"] == "not proven", got
        assert got["why"] == ("the report proves the cost trees of llama's own class, not those "
                              "of LlamaModel"), got


@pytest.mark.parametrize("name", ["opt-125m", "bart-large-cnn"])
def test_a_language_model_head_s_cache_is_its_base_model_s(name):
    """OPT's trees describe OPTModel (its table's class: the causal LM's head is tied, no
    weight of its own) and BART's BartModel. A file of OPTForCausalLM or
    BartForConditionalGeneration gave no KV cache, as if the class's head changed it; the head
    keeps no cache, so the figure is the base model's, and equals transformers' build of the
    file. Its FLOPs, which the head does change, stay unformulated, with the reason."""
    needs_transformers()
    out = costs.check_config(CONFIGS / f"{name}.json", 4096, 2)
    ours, theirs, why = out["kv"]
    assert ours is not None and ours == theirs, (ours, theirs, why)
    ours, _, why = out["flops"]
    assert ours is None and "is not the one the cost trees describe" in why, why
