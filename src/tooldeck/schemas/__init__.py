"""What a Tool needs to check, normalise and validate a JSON schema.

This layer sits below `tool.py`: tools, dialects and execution all import from here, and it
imports nothing of theirs.

    normalize_parameters(schema)   -> the standard JSON-Schema form of a real-world schema
    check_definition(schema)       -> refuses, with the key path, what no validator could enforce
    compile_schema(schema)         -> a fast checker for call arguments (coercing like models need)
"""
