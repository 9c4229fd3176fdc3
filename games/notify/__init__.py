"""A person's notification socket, open on every page (consumer: put together from each feature's socket part),
and the one road that sends a person's open pages to a match they were seated at (goto)."""
