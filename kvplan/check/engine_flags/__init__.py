"""The options each engine's server accepts, from its own source (see each module's SOURCE);
OPTION_TABLES: each engine's table behind one interface (kvplan.check.engine_flags.table), with
its options read release by release where they were (`history`, kvplan.check.engine_flags.history:
SGLang's, its data in sglang_releases.json, loaded on first use)."""

from __future__ import annotations

from pathlib import Path

from kvplan.check.engine_flags import sglang, trtllm, vllm
from kvplan.check.engine_flags.history import History
from kvplan.check.engine_flags.table import OptionTable

OPTION_TABLES: dict[str, OptionTable] = {
    "vllm": OptionTable.pinned("vLLM", vllm.FLAGS, vllm.SOURCE, frozenset(vllm.MULTI_VALUE),
                               valued=vllm.VALUED),
    "sglang": OptionTable.pinned(
        "SGLang", sglang.FLAGS, sglang.SOURCE, frozenset(sglang.MULTI_VALUE),
        History("SGLang", sglang.FLAGS, Path(__file__).with_name("sglang_releases.json"),
                sglang.files_read, sglang.SPELLED_BEFORE)),
    "trtllm": trtllm.TABLE,
}
