"""My games: the matches a person is in, their move first (the page and its reads)."""
