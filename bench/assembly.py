"""`python bench/assembly.py`: the same as `tooldeck bench assembly` (see tooldeck.bench.assembly)."""

from tooldeck.bench.assembly import main

raise SystemExit(main())
