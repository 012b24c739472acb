"""The words of the scripted session Claude Code and Codex both play: the model has a subagent
read the Makefile, the host compacts, then a last turn. Each test module scripts its host's
way of doing it (the tools, the prompts); the texts are these."""

TASK = "Read the Makefile and list its targets."
FINDINGS = "The Makefile has two targets: test and check."
FIRST_ANSWER = "A subagent read the Makefile: test and check are its targets."
COMPACT_SUMMARY = "Compaction summary 7f3a: the user asked which Makefile targets exist."
LAST_ANSWER = "Nothing else to check: run make test before you commit."
