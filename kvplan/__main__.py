"""Allow `python -m kvplan`."""

from kvplan.cli import main

main()
