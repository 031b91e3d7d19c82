"""The goal solver's benchmark: a small shop, thirty tasks over it with their oracle, the
noisy model's faults, and the plain-`Agent` baseline.

- `domain.py`: the shop (an in-memory database and workspace files) and its actions as tools;
- `tasks.py`: the tasks, their end-state checks, forbidden actions, scripted user and oracle;
- `faults.py`: the faults planted in the oracle, deterministically per (task, seed);
- `baseline.py`: the plain-`Agent` baseline (`python -m benchmarks.solver_tasks.baseline`).
"""
