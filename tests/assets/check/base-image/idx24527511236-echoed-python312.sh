#!/bin/bash
echo "📥 Installation Command:"
echo "  pip install vllm --index-url $INSTALL_URL"
echo ""
echo "💡 Test installation with:"
echo "  docker run -it python:3.12-slim bash -c 'pip install vllm --index-url $INSTALL_URL && python -c \"import vllm; print(vllm.__version__)\""'"
echo ""
echo "============================================================================"
