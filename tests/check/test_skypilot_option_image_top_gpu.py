"""SkyPilot `any_of` options that name no accelerators but their own `image_id` keep the top
level's accelerators, each copy with its option's container (sky/resources.py
`_override_resources`; task h58review: the branch that copies the top level's candidates was not
exercised by any test). One H100:1 per option, the release of each named."""

from __future__ import annotations

from pathlib import Path

from kvplan.check import check_paths


def test_options_with_only_an_image_id_keep_the_top_levels_gpus(tmp_path: Path) -> None:
    path = tmp_path / "t.sky.yaml"
    path.write_text("resources:\n  accelerators: H100:1\n  any_of:\n"
                    "    - image_id: docker:vllm/vllm-openai:v0.9.2\n"
                    "    - image_id: docker:vllm/vllm-openai:v0.10.1\n"
                    "run: |\n  vllm serve Qwen/Qwen3-8B --max-model-len 8192\n")
    [o] = check_paths([str(path)]).outcomes
    assert o.verdict == "PASS"
    assert o.engine_version == "0.9.2"
    assert ("the release differs by candidate (the first's is named above): H100:1 "
            "(docker:vllm/vllm-openai:v0.9.2): vllm 0.9.2; H100:1 "
            "(docker:vllm/vllm-openai:v0.10.1): vllm 0.10.1") in o.notes
