"""The original projects' own bot strategies, rewritten from their descriptions to measure our bots against.

One module per game, each exposing OPPONENT (the games.engines.base.Bot signature): like our bots, it is given
only its seat's view and legal actions.
"""
