"""The site's tables, one module per area, all re-exported here (Django finds the app's models in games.models).

match: Match, Seat, Move, Process, Presence, ChatMessage, ChatMute; results: PlayerResult, FinishedMatch,
PlayerStats; review: AnalysisJob; mail: Notice; lobby: Seek, Challenge, Board; tournaments: Tournament, Entrant,
TournamentGame, TournamentBye; social: Follow, Block, OnlineSocket.
"""

from .lobby import Board, Challenge, Seek
from .mail import Notice
from .match import GAME_CHOICES, ChatMessage, ChatMute, Match, Move, Presence, Process, Seat, new_invite_code
from .results import FinishedMatch, PlayerResult, PlayerStats
from .review import AnalysisJob
from .social import Block, Follow, OnlineSocket
from .tournaments import Entrant, Tournament, TournamentBye, TournamentGame

__all__ = [
    "GAME_CHOICES", "AnalysisJob", "Block", "Board", "Challenge", "ChatMessage", "ChatMute", "Entrant", "FinishedMatch",
    "Follow", "Match", "Move", "Notice", "OnlineSocket", "PlayerResult", "PlayerStats", "Presence", "Process", "Seat",
    "Seek", "Tournament", "TournamentBye", "TournamentGame", "new_invite_code",
]
