"""Who is calling and what they may do (tokens, scopes), and what content is refused (secrets)."""
