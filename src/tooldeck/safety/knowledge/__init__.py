"""What the analyser knows about programs and what it judges: the table of programs
(`programs.toml`, read by `table`) and, once split, the rules over effects."""
