"""The goal solver: goal trees, plans, checkpoints and approvals, reviews, durable solves."""
