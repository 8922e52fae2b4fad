#!/usr/bin/env bash
# Source: https://github.com/sgl-project/sglang/issues/8833 ("[Tracking] OpenAI gpt-oss Day 0 Support"), comment by
#   chensiye-csy, 2025-08-08: "I have successfully deployed the server with cmd `python3 -m sglang.launch_server --model
#   openai/gpt-oss-120b --tp 2 -dp 4 --port 20111` in 8*H20 machine. But strangely, if the content is `one token`, an
#   error will be reported" (a request-time error in the chat response parser, serving_chat.py, after the start).
#   This server started and served, the outcome recorded here. (Round 8's file 79 is another deployment of the same
#   thread: gpt-oss-120b-bf16 at TP 2 in the pinned image v0.4.10.post2.)
# The command below is the comment's, copied verbatim (one line).
# GPU: "8*H20 machine" (the comment; --tp 2 x -dp 4 = 8 of them) -> 100-...kvplan.yaml names h20.
# Release: not stated; the traceback runs SGLang from a source checkout (/insdata/.../software/sglang/python/...) on
#   2025-08-08, between 0.4.10.post2 (gpt-oss day 0) and 0.5.0rc0 by date, inferred; the command pins none.
python3 -m sglang.launch_server --model openai/gpt-oss-120b --tp 2 -dp 4 --port 20111
