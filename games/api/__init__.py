"""The Bot API: programs play the four games through JSON over HTTP (README, "Programs play too: the Bot API")."""
