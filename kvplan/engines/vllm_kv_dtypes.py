"""The values vLLM's --kv-cache-dtype takes, per release read (task h90hostile): a value outside
them stops the engine (argparse's choices on the command line; CacheConfig's pydantic Literal for
LLM(kv_cache_dtype=...) and EngineArgs), and `kvplan check` names them in its fix instead of
kvplan's own precision names.

Read from the wheels on PyPI:
- 0.34.0 (vllm-0.34.0-cp38-abi3-manylinux_2_28_x86_64.whl, sha256 79ca4b3c...44ca2):
  vllm/config/cache.py:44-67, `CacheDType = Literal[...]` (KV_CACHE_DTYPES, :73, is its mirror,
  to which a platform backend may append);
- 0.27.1 (vllm-0.27.1-cp38-abi3-manylinux_2_28_x86_64.whl, sha256 98e9fc2a...2670):
  vllm/config/cache.py:19-36;
- 0.25.0 (sha256 c82e96b0...532f0c) config/cache.py:19-36, 0.24.0 (2d2831ae...822cf) :19-35,
  0.20.0 (24d28892...6f7dfb) :18-34 and 0.19.1 (71a87f46...dc719) :14-23 (task h101kvint:
  int8_per_token_head first in 0.20.0, int4_per_token_head in 0.25.0; kvplan.engines.vllm_kv_int);
- 0.3.0 to 0.4.0.post1 take auto and fp8_e5m2, 0.4.1 auto and fp8 (vllm/engine/arg_utils.py,
  kvplan.engines.vllm_flag_versions.KV_FP8_SINCE).
A release between these was not read: the newest read is named, with that said.
"""

from __future__ import annotations

from kvplan.engines.release import read_numbers

_V034 = ("auto", "float16", "bfloat16", "fp8", "fp8_e4m3", "fp8_e5m2", "fp8_inc", "fp8_ds_mla",
         "nvfp4_ds_mla", "turboquant_k8v4", "turboquant_4bit_nc", "turboquant_k3v4_nc",
         "turboquant_3bit_nc", "octave_k3v4", "octave_k3v3", "octave_k3v3_compact",
         "ultraquant_4bit", "int4_per_token_head", "int8_per_token_head", "fp8_per_token_head",
         "nvfp4", "nvfp4_4over6")
_V0271 = ("auto", "float16", "bfloat16", "fp8", "fp8_e4m3", "fp8_e5m2", "fp8_inc", "fp8_ds_mla",
          "turboquant_k8v4", "turboquant_4bit_nc", "turboquant_k3v4_nc", "turboquant_3bit_nc",
          "int4_per_token_head", "int8_per_token_head", "fp8_per_token_head", "nvfp4")
_V0250 = ("auto", "float16", "bfloat16", "fp8", "fp8_e4m3", "fp8_e5m2", "fp8_inc", "fp8_ds_mla",
          "turboquant_k8v4", "turboquant_4bit_nc", "turboquant_k3v4_nc", "turboquant_3bit_nc",
          "int4_per_token_head", "int8_per_token_head", "fp8_per_token_head", "nvfp4")
_V0200 = tuple(v for v in _V0250 if v != "int4_per_token_head")  # 0.24.0's too
_V0191 = ("auto", "float16", "bfloat16", "fp8", "fp8_e4m3", "fp8_e5m2", "fp8_inc", "fp8_ds_mla")
# (first release, first release past it or None, values, where read)
_READ: tuple[tuple[tuple[int, ...], tuple[int, ...] | None, tuple[str, ...], str], ...] = (
    ((0, 34, 0), (0, 34, 1), _V034, "vllm/config/cache.py:44-67 in the vllm 0.34.0 wheel"),
    ((0, 27, 1), (0, 27, 2), _V0271, "vllm/config/cache.py:19-36 in the vllm 0.27.1 wheel"),
    ((0, 25, 0), (0, 25, 1), _V0250, "vllm/config/cache.py:19-36 in the vllm 0.25.0 wheel"),
    ((0, 24, 0), (0, 24, 1), _V0200, "vllm/config/cache.py:19-35 in the vllm 0.24.0 wheel"),
    ((0, 20, 0), (0, 20, 1), _V0200, "vllm/config/cache.py:18-34 in the vllm 0.20.0 wheel"),
    ((0, 19, 1), (0, 19, 2), _V0191, "vllm/config/cache.py:14-23 in the vllm 0.19.1 wheel"),
    ((0, 4, 1), (0, 4, 2), ("auto", "fp8"), "vllm/engine/arg_utils.py:176-178 in vllm 0.4.1"),
    ((0, 3, 0), (0, 4, 1), ("auto", "fp8_e5m2"),
     "vllm/engine/arg_utils.py, 0.3.0 :127-129 to 0.4.0.post1 :154-156"),
)
NEWEST_READ = "0.34.0"


def kv_dtype_values(version: str | None) -> tuple[str, tuple[str, ...], str, bool]:
    """(the release whose values are named, the values, where they were read, whether they are
    `version`'s own): a stated release read (or in a read range) gets its own, and no release
    the newest read's (the release kvplan plans with); any other gets the newest read's, with
    False (its own were not read)."""
    ver = read_numbers(version) if version is not None else None
    if ver is None:
        return NEWEST_READ, _V034, _READ[0][3], version is None
    ver = ver + (0,) * (3 - len(ver))
    for since, until, values, where in _READ:
        if since <= ver < (until or ver + (1,)):
            return str(version), values, where, True
    return NEWEST_READ, _V034, _READ[0][3], False
