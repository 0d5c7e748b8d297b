"""Parley past one PostgreSQL: Citus (specs/scale.md).

`layout` is the one list of how each table is placed on a cluster and applies it after the
migrations; `nodes` finds the worker nodes and their shards (the per-node readers use it);
`build` and `local` make a cluster on one machine from the vendored Citus source
(`parley cluster start`).
"""
