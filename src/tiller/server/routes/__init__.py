"""The service's routes, one module per resource."""
