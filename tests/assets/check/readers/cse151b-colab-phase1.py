# -*- coding: utf-8 -*-
"""
CSE 151B Spring 2026 — Math Reasoning Competition
Qwen3-4B-Thinking + QLoRA fine-tune, vLLM inference

IMPORTANT — READ FIRST
======================================================================
This pipeline uses THREE different package environments that conflict
with each other. You CANNOT "Run all". Each phase runs in its own fresh
kernel session, with a runtime restart between phases.

  PHASE 1  Inference (vLLM)        -> run merged model, score, submit
  PHASE 2  Fine-tuning (TRL/PEFT)  -> train the LoRA adapter
  PHASE 3  Merge (PEFT)            -> fold adapter into base, save model

Normal order to PRODUCE a model from scratch: Phase 2 -> Phase 3 -> Phase 1.
If the merged model already exists on Drive, you only need Phase 1.

SAFETY RULE: never run `rm -rf` on anything under /content/drive.
Large files on Drive can take several minutes to appear in the
drive.google.com web view even after they are fully saved, trust the
Colab file browser / os.path.getsize, not the web UI's refresh speed.
======================================================================
"""

# =============================================================================
# PHASE 1 — INFERENCE  (run in a FRESH kernel)
# =============================================================================

# -----------------------------------------------------------------------------
# 1.1  Install vLLM + judger dependencies. RUN FIRST, then RESTART the kernel.
#      (sympy / antlr pins are required or the judger crashes on parse_latex.)
# -----------------------------------------------------------------------------
!pip install vllm==0.8.5 sympy==1.13.1 antlr4-python3-runtime==4.11.1 -q

import os
os.environ["VLLM_WORKER_MULTIPROC_METHOD"] = "spawn"
os.environ["VLLM_USE_V1"] = "0"
# ---> After this cell finishes, RESTART THE RUNTIME, then continue at 1.2 <---


# -----------------------------------------------------------------------------
# 1.2  Mount Drive.
#      If you get "Mountpoint must not already contain files", use
#      force_remount=True (NEVER rm -rf the mount).
# -----------------------------------------------------------------------------
from google.colab import drive
drive.mount('/content/drive')  # add force_remount=True if it complains


# -----------------------------------------------------------------------------
# 1.3  Imports, config, paths.
# -----------------------------------------------------------------------------
import re
import csv
import json
import sys
from pathlib import Path
from typing import Optional
from transformers import AutoTokenizer
from tqdm.auto import tqdm

PROJECT     = "/content/drive/MyDrive/competition_project"
MERGED_DIR  = f"{PROJECT}/qlora_merged"        # fine-tuned model (Phase 3 output)
DATA_DIR    = f"{PROJECT}/data"
OUTPUT_PATH = f"{PROJECT}/results"
Path(OUTPUT_PATH).mkdir(parents=True, exist_ok=True)


# -----------------------------------------------------------------------------
# 1.4  Prompt builder (shared by public + private inference).
# -----------------------------------------------------------------------------
SYSTEM_PROMPT_MATH = (
    "You are an expert mathematician competing in a math olympiad. "
    "Think carefully and systematically, checking your work at each step. "
    "Simplify all expressions fully to their simplest numerical or symbolic form. "
    "The question uses [ANS] as placeholders for answers. "
    "Put your final answer inside \\boxed{}. "
    "For multiple sub-answers, use a single \\boxed{} with comma separation "
    "in the same order as the [ANS] placeholders, e.g. \\boxed{3, 7}. "
    "Always double-check your arithmetic before giving the final answer."
)

SYSTEM_PROMPT_MCQ = (
    "You are an expert mathematician competing in a math olympiad. "
    "Solve the problem completely first, then check which answer choice matches. "
    "Output ONLY the letter of the single best answer inside \\boxed{}, e.g. \\boxed{C}. "
    "Do not write anything after the boxed letter."
)

def build_prompt(question: str, options: Optional[list]) -> tuple[str, str]:
    if options:
        labels    = [chr(65 + i) for i in range(len(options))]
        opts_text = "\n".join(f"({lbl}) {opt.strip()}" for lbl, opt in zip(labels, options))
        user = (
            f"{question}\n\n"
            f"Answer Choices:\n{opts_text}\n\n"
            "Which option is correct? Output only \\boxed{<letter>}."
        )
        return SYSTEM_PROMPT_MCQ, user
    return SYSTEM_PROMPT_MATH, question


# -----------------------------------------------------------------------------
# 1.5  Judger + answer-extraction helpers.
# -----------------------------------------------------------------------------
!cp {PROJECT}/judger.py /content/judger.py
!cp {PROJECT}/utils.py  /content/utils.py
sys.path.insert(0, "/content")
from judger import Judger
judger = Judger(strict_extract=False)
print("Judger loaded.")

def extract_letter(text: str) -> str:
    m = re.search(r"\\boxed\{([A-Za-z])\}", text)
    if m:
        return m.group(1).upper()
    matches = re.findall(r"\b([A-Z])\b", text.upper())
    return matches[-1] if matches else ""

def score_mcq(response: str, gold_letter: str) -> bool:
    return extract_letter(response) == gold_letter.strip().upper()

def score_responses(items, responses):
    """Score a list of dataset items (which must contain answers) against
    a {id: response} dict. Returns the results list."""
    out = []
    for item in tqdm(items, desc="Scoring"):
        resp   = responses.get(item.get("id"), "")
        is_mcq = bool(item.get("options"))
        gold   = item["answer"]
        if is_mcq:
            correct = score_mcq(resp, str(gold))
        else:
            gold_list = gold if isinstance(gold, list) else [gold]
            try:
                correct = judger.auto_judge(pred=resp, gold=gold_list,
                                            options=[[]] * len(gold_list))
            except Exception:
                correct = False
        out.append({"id": item.get("id"), "is_mcq": is_mcq,
                    "gold": gold, "response": resp, "correct": correct})
    return out

def print_summary(results, baseline=None):
    mcq  = [r for r in results if r["is_mcq"]]
    free = [r for r in results if not r["is_mcq"]]
    acc  = lambda s: sum(r["correct"] for r in s) / len(s) * 100 if s else 0.0
    print("=" * 50)
    print(f"  MCQ        : {acc(mcq):6.2f}%   ({len(mcq)} q)")
    print(f"  Free-form  : {acc(free):6.2f}%   ({len(free)} q)")
    print(f"  OVERALL    : {acc(results):6.2f}%   ({len(results)} q)")
    if baseline is not None:
        print(f"  (baseline was {baseline:.2f}%)")
    print("=" * 50)


# -----------------------------------------------------------------------------
# 1.6  Load the merged model into vLLM (ONE load, reused for public + private).
# -----------------------------------------------------------------------------
from vllm import LLM, SamplingParams

tokenizer = AutoTokenizer.from_pretrained(MERGED_DIR, trust_remote_code=True,
                                          local_files_only=True)
tokenizer.pad_token = tokenizer.eos_token

llm = LLM(
    model=MERGED_DIR,
    dtype="bfloat16",
    gpu_memory_utilization=0.90,
    max_model_len=8192,
    trust_remote_code=True,
    max_num_seqs=32,
    enforce_eager=True,
    disable_async_output_proc=True,
)
print("Model loaded.")
