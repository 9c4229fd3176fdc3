"""Challenges from one person to another: the service (services), what a person is shown (queries), the views
that answer them (views) and the notification socket's part (socket)."""
