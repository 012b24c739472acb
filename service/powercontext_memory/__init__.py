"""PowerContext Memory: a versioned, auditable memory service for coding agents."""
