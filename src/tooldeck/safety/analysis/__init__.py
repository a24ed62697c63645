"""Reading a command: parsing, expansion, wrappers, interpreters' code, hooks and data flows,
down to the invocations the rules judge."""
