"""The service's HTTP routes, one module per group; each exposes `router`."""
