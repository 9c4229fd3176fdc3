"""Quick pairing: the pools (pools), the pure matchmaking rules (matchmaking), the service that seats a pool's
people in one transaction (pairing), the lobby's grid (grid) and its part of the notification socket (socket)."""
