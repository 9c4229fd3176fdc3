"""The composers: what puts features together for a person (their notification socket, the match page, the profile's
games). Each imports features; no feature imports them."""
