"""The options each engine's server accepts, from its own source (see each module's SOURCE);
OPTION_TABLES: each engine's table behind one interface (kvplan.check.engine_flags.table), with
its options read release by release where they were (`history`, kvplan.check.engine_flags.history:
SGLang's)."""

from __future__ import annotations

from kvplan.check.engine_flags import sglang, sglang_releases, trtllm, vllm
from kvplan.check.engine_flags.history import History
from kvplan.check.engine_flags.table import OptionTable

OPTION_TABLES: dict[str, OptionTable] = {
    "vllm": OptionTable.pinned("vLLM", vllm.FLAGS, vllm.SOURCE, frozenset(vllm.MULTI_VALUE)),
    "sglang": OptionTable.pinned(
        "SGLang", sglang.FLAGS, sglang.SOURCE, frozenset(sglang.MULTI_VALUE),
        History("SGLang", sglang.FLAGS, sglang_releases.STEPS, sglang_releases.WHEELS,
                sglang.files_read, sglang.SPELLED_BEFORE)),
    "trtllm": trtllm.TABLE,
}
