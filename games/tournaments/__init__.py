"""Tournaments: arenas (pair whoever is free, for a set time) and Swiss events (a set number of rounds).

points.py and arena.py and swiss.py are the pure rules (standard library only); services.py is every change
(create, join, pause, withdraw, pair, count a finished match, start and end), decided in the database under the
tournament's lock; queries.py the reads; news.py tells the live pages.
"""
