"""The options each engine's server accepts, from its own source (see each module's SOURCE)."""
