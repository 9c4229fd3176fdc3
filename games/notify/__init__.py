"""Where a person's pages go: the notification socket's own part (socket: "your turn" cues, the frame to a new
match) and what every feature's part is given (parts; the socket is put together by games.site.socket), the one
road that sends a person's open pages to a match they were seated at (goto); mail/, the notifications by email."""
