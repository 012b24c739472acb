"""Pure domain logic: models, canonical encoding, analysis and ranking; no I/O."""
