#!/bin/bash
# Step 7: Run Migrations
cd /root/Project-Kernex/control-plane

docker run --rm \
    --env-file .env \
    --network host \
    -v $(pwd):/app \
    -w /app \
    python:3.11 bash -c "pip install -q -r requirements.txt && alembic upgrade head"
