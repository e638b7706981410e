"""Weight initialisation skipped in derive's meta builds (paramcount.analyze.derive.quiet_init):
within the block every init primitive returns its tensor unwritten, transformers' guarded copies
too; outside it they are the originals again; a meta build inside it has the same weights, its
tied weights still tied."""

from __future__ import annotations

from tests._shared import torch_side


@torch_side
def test_init_primitives_return_their_tensor_unwritten_and_are_restored_after():
    import torch
    from torch.nn.modules import linear
    from transformers import initialization

    from paramcount.analyze.derive import quiet_init

    before = (torch.nn.init.normal_, linear.init.kaiming_uniform_,
              dict(initialization.TORCH_INIT_FUNCTIONS))
    t = torch.zeros(3, 4)
    with quiet_init.skipped():
        assert torch.nn.init.normal_(t, std=5.0) is t  # the tensor, never None
        assert initialization.normal_(t, std=5.0) is t  # transformers' guarded copy
        assert torch.nn.init.ones_(t) is t
        assert torch.nn.Linear(4, 4).weight.shape == (4, 4)
        assert not t.any()  # nothing written
    assert (torch.nn.init.normal_, linear.init.kaiming_uniform_,
            dict(initialization.TORCH_INIT_FUNCTIONS)) == before
    assert torch.nn.init.ones_(t) is t and t.all()  # the real one writes again


@torch_side
def test_a_meta_build_within_has_the_same_weights_and_keeps_its_ties():
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    from paramcount.analyze.derive import quiet_init
    from reference_models.hf import torch_weights

    cfg = GPT2Config(n_embd=16, n_layer=2, n_head=2, vocab_size=50, n_positions=8)

    def build(quiet: bool):
        with torch.device("meta"):
            if not quiet:
                return GPT2LMHeadModel(cfg)
            with quiet_init.skipped():
                return GPT2LMHeadModel(cfg)

    plain, quiet = build(False), build(True)
    assert [(w.path, w.shape, w.trainable) for w in torch_weights(quiet)] == \
        [(w.path, w.shape, w.trainable) for w in torch_weights(plain)]
    assert quiet.lm_head.weight is quiet.transformer.wte.weight
