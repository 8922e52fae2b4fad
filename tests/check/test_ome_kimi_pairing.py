"""An OME Kimi-K2 ClusterBaseModel pairs with a runtime of DeepseekV3ForCausalLM and is planned as
the catalog's Kimi-K2, not DeepSeek-V3 (task h44checkgaps). OME's controller fills a BaseModel's
modelArchitecture from the checkpoint's config.json `architectures` and its modelType from
`model_type` (pkg/controller/v1beta1/basemodel updateSpecWithConfig); the runtime selector
compares the architecture. moonshotai/Kimi-K2-Instruct's config.json: architectures
[DeepseekV3ForCausalLM], model_type kimi_k2 (tests/assets/hf_configs/kimi-k2.json). Until this
task kvplan stood in with the model_type, so the real ClusterBaseModel fitted no Kimi runtime."""

from __future__ import annotations

from pathlib import Path

from kvplan.check import check_paths
from kvplan.check.manifests.ome_run import BaseModel, architecture_of

ASSETS = Path(__file__).parents[1] / "assets" / "check"
KIMI_MODEL = ASSETS / "ome-kimi" / "basemodel-kimi-k2-instruct.yaml"
KIMI_RUNTIME = ASSETS / "corpus" / "ome" / "srt-kimi-k2-pd-rt.yaml"


def test_the_architecture_is_the_checkpoints_not_its_model_type() -> None:
    """No modelArchitecture in the file: the catalog's kimi-k2 (storageUri
    hf://moonshotai/Kimi-K2-Instruct) gives DeepseekV3ForCausalLM -> key deepseekv3, and its
    1,026,408,232,448 parameters (model_specs/kimi-k2.yaml params_total)."""
    spec = {"storage": {"storageUri": "hf://moonshotai/Kimi-K2-Instruct"}}
    key, size = architecture_of(BaseModel("ClusterBaseModel", "kimi-k2-instruct", KIMI_MODEL, 1,
                                          spec))
    assert (key, size) == ("deepseekv3", 1_026_408_232_448)


def test_sgl_projects_kimi_basemodel_pairs_with_its_runtime_as_kimi() -> None:
    """sgl-project/ome's ClusterBaseModel kimi-k2-instruct (f900fd64) with its Kimi-K2 PD runtime
    (supportedModelFormats DeepseekV3ForCausalLM, modelSizeRange 1T-1.5T: 1.026T fits): both the
    prefill engine (ERROR before: no BaseModel fitted) and the decode engine are kimi-k2, each a
    WARN (no GPU named), and $(MODEL_PATH) names the ClusterBaseModel."""
    outcomes = [o for o in check_paths([str(KIMI_RUNTIME), str(KIMI_MODEL)]).outcomes
                if o.verdict != "SKIP"]
    assert [(o.name, o.verdict, o.model) for o in outcomes] == [
        ("engine", "WARN", "kimi-k2"), ("decoder", "WARN", "kimi-k2")], [
        (o.verdict, o.reasons, o.problems) for o in outcomes]
    assert all(any("$(MODEL_PATH) holds ClusterBaseModel kimi-k2-instruct" in n for n in o.notes)
               for o in outcomes)
