"""Friends: following, blocking, and who of the people one follows is online now (issue 50, points 1 and 2)."""
