"""The wake engine: the snapshot the planner reads, recording a plan, the tick, dispatching
and running launches (executor), wake hooks, and explaining a wake."""
