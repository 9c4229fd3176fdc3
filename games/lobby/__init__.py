"""The lobby page: its lists (a person's matches, the open ones, Watch), the custom-match forms, invite links, and
its live drawing. Quick pairing is games.pool, challenges games.challenges, the notification socket games.notify."""
