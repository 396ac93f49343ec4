"""The advisor core: pure domain logic, no Discord import, no I/O but loading knowledge."""
