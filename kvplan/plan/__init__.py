"""The planner: one deployment record (kvplan/v1 `Deployment`) in, plans out.

Every command builds a record (from a file, flags, or a file with flags overriding its fields),
and this package holds the rules that combine its inputs. Modules:

- `rules`: the arithmetic every layer shares (required users), importable from anywhere;
- `fields`: the one table mapping each command-line flag to its field of the schema;
- `record`: building, overriding, expanding and saving records, with where each value came from;
- `planner`: sizing, fleet plans and the traffic of a record (the public functions the CLI calls);
- `engine_fields`: the engine's unstated defaults added to the fields `explain` lists (exported
  through `planner`).

This __init__ imports nothing so that `kvplan.capacity` can use `rules` without a cycle.
"""
