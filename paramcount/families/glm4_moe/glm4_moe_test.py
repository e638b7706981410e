"""GLM-4.5, GLM-4.5-Air and GLM-4.6 (hand-written, issue 20): the cards' activated and total
figures, and the MTP layer read as a named delta."""

from __future__ import annotations

import pytest
from tests._shared import CONFIGS
from tests._shared import built_values
from tests._shared import count_json

from paramcount.core import symbols
from paramcount.model import registry


@pytest.mark.parametrize(("preset", "activated"), [("glm_4_5", 32_080_359_424),
                                                   ("glm_4_5_air", 12_182_609_920)])
def test_glm_activated_figures_leave_out_the_token_table_and_head(preset, activated):
    """GLM-4.5's "32B activated" and GLM-4.5-Air's "12B": the active count less the token
    table and the LM head."""
    arch, values = built_values("glm4_moe", preset, "transformers")
    active = int(arch.formula.active_total().subs(values))
    table = int(arch.formula.find("embeddings.token").total().subs(values))
    assert active - 2 * table == activated


@pytest.mark.parametrize(("preset", "changes", "stored", "tables", "card"), [
    ("glm_4_5", {}, 358_337_776_896, 4, 355_233_991_936),
    ("glm_4_6", {"mtp_tab": 0}, 356_785_884_416, 2, 355_233_991_936),
    ("glm_4_5_air", {}, 110_468_818_944, 4, 107_985_790_976),
])
def test_glm_card_totals_count_the_mtp_layer_without_word_embeddings_or_output(
        preset, changes, stored, tables, card):
    """GLM-4.5's report counts "the parameters of MTP layers but not word embeddings and the
    output layer": the stored count (n_mtp = 1, the MTP layer with or without its own table
    and head, mtp_tab: GLM-4.6's checkpoint stores none) less every v × d_e table. 355.2B for
    GLM-4.5 and GLM-4.6; 108.0B for GLM-4.5-Air, whose card says 106B (its preset's card.why)."""
    arch = registry.get("glm4_moe")
    hp = arch.resolve({**arch.preset(preset).hparams, **changes})
    assert arch.count(hp) == stored
    vocab = [t for t in arch.formula.leaves() if t.kind in ("embedding", "head")]
    values = {symbols.get(k): x for k, x in hp.items()}
    assert sum(int(t.expr.subs(values)) for t in vocab) == tables * hp["v"] * hp["d_e"]
    assert stored - tables * hp["v"] * hp["d_e"] == card


def test_glm_mtp_layer_is_read_and_is_a_named_delta(capsys):
    """num_nextn_predict_layers is n_mtp; transformers does not build the layer (a delta)."""
    data = count_json(capsys, "--config", str(CONFIGS / "glm-4.5.json"))
    assert data["config"]["read"]["n_mtp"] == 1
    assert data["total"] == 352_797_814_784 == 358_337_776_896 - 5_539_962_112
