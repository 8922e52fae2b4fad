"""Publish A@2 before live A@1/B/C streams finish, without changing their outputs."""

import concurrent.futures
import json
import os
import threading
import time
import unittest

import numpy as np
import requests
import torch

from sglang.srt.managers.scheduler_components.weight_updater import _sha256_tensor
from sglang.srt.utils import MultiprocessingSerializer, kill_process_tree
from sglang.test.ci.ci_register import register_cuda_ci
from sglang.test.test_utils import (
    DEFAULT_TIMEOUT_FOR_SERVER_LAUNCH,
    DEFAULT_URL_FOR_TEST,
    CustomTestCase,
    popen_launch_server,
)

register_cuda_ci(est_time=150, stage="base-b", runner_config="1-gpu-large")


class TestLoRAPublicationOverlap(CustomTestCase):
    @classmethod
    def setUpClass(cls):
        cls.base_url = os.environ.get(
            "SGLANG_LORA_PUBLICATION_TEST_URL", DEFAULT_URL_FOR_TEST
        )
        cls.process = popen_launch_server(
            os.environ.get("SGLANG_LORA_PUBLICATION_TEST_MODEL", "Qwen/Qwen3-0.6B"),
            cls.base_url,
            timeout=DEFAULT_TIMEOUT_FOR_SERVER_LAUNCH,
            other_args=[
                "--enable-lora",
                "--max-lora-rank",
                "8",
                "--max-loras-per-batch",
                "4",
                "--lora-target-modules",
                "q_proj",
                "k_proj",
                "v_proj",
                "--lora-backend",
                "triton",
                "--mem-fraction-static",
                "0.15",
                "--context-length",
                "4096",
                "--cuda-graph-max-bs-decode",
                "4",
                "--max-running-requests",
                "8",
                "--incremental-streaming-output",
                "--random-seed",
                "11",
            ],
        )

    @classmethod
    def tearDownClass(cls):
        kill_process_tree(cls.process.pid)
