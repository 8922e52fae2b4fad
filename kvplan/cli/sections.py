"""The headed sections of the long help pages (size, fleet, explain), in the order printed.

Each option of those commands names its section with typer's `rich_help_panel=` (one of these
names); kvplan.cli.helpfmt prints the sections in SECTIONS' order (its docstring says why this
order), an option without one under "Options:" after them. No imports: the option modules and
the help formatter all read these names.
"""

from __future__ import annotations

MODEL = "Model and context"
GPU = "GPU and parallelism"
MEMORY = "Memory"
TRAFFIC = "Traffic"
SPEED = "Speed"
COST = "Cost"
SEARCH = "Search"
ENGINE = "Engine"
VLLM = "Engine (vLLM)"
SGLANG = "Engine (SGLang)"
TRTLLM = "Engine (TensorRT-LLM)"
MEASURE = "Measure"
OUTPUT = "Output"

SECTIONS = (MODEL, GPU, MEMORY, TRAFFIC, SPEED, COST, SEARCH, ENGINE, VLLM, SGLANG, TRTLLM,
            MEASURE, OUTPUT)
