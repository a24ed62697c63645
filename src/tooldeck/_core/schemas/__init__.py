"""What a Tool needs to check, normalise and validate a JSON schema, and to build one from a
Python signature.

This layer sits below `tool.py`: tools, dialects and execution import from here, and it imports
nothing of theirs.

    normalize.normalize_parameters(schema)  the standard form of a real-world schema, refusing
                                            (with the key path) what no validator could enforce
    validate.SchemaValidator(schema)        exact verdicts, plus the conversions models need
    arguments.schema_and_model(...)         a function's parameters as a schema and a pydantic model
    docstrings.read_docstring(doc)          Google / Sphinx / NumPy docstrings, by part
"""
