from django.urls import path

from .challenges import views as challenge
from .history import views as history
from .lobby import views as lobby
from .mine import views as mine
from .notify.mail import views as mail
from .ratings import views as ratings
from .rulebook import views as rulebook
from .site import match, replay
from .social import views as social
from .tournaments import views as tournaments

urlpatterns = [
    path("", lobby.home, name="home"),
    path("play/", lobby.play, name="play"),
    path("play/new/<slug:game>/", lobby.create_match, name="create_match"),
    path("games/", mine.my_games, name="my_games"),
    path("challenge/<str:username>/", challenge.make_challenge, name="challenge"),
    path("challenges/<int:challenge_id>/accept/", challenge.accept_challenge, name="accept_challenge"),
    path("challenges/<int:challenge_id>/decline/", challenge.decline_challenge, name="decline_challenge"),
    path("challenges/<int:challenge_id>/withdraw/", challenge.withdraw_challenge, name="withdraw_challenge"),
    path("m/<int:match_id>/", match.match_page, name="match"),
    path("m/<int:match_id>/join/", lobby.join_match, name="join_match"),
    path("m/<int:match_id>/leave/", lobby.leave_match, name="leave_match"),
    path("m/<int:match_id>/cancel/", lobby.cancel_match, name="cancel_match"),
    path("m/<int:match_id>/abandon/", lobby.abandon_match, name="abandon_match"),
    path("m/<int:match_id>/replay/", replay.replay_page, name="replay"),
    path("m/<int:match_id>/analyse/", replay.analyse_match, name="analyse_match"),
    path("m/<int:match_id>/export.json", history.export_match, name="export_match"),
    path("history/", history.history_list, name="history"),
    path("u/<str:username>/history/", history.player_history, name="player_history"),
    path("u/<str:username>/friends/", social.friends_page, name="friends"),
    path("u/<str:username>/follow/", social.follow, name="follow"),
    path("u/<str:username>/unfollow/", social.unfollow, name="unfollow"),
    path("u/<str:username>/block/", social.block, name="block"),
    path("u/<str:username>/unblock/", social.unblock, name="unblock"),
    path("history/names/", history.name_suggestions, name="history_names"),
    path("leaderboard/", ratings.leaderboard, name="leaderboard"),
    path("tournaments/", tournaments.tournament_list, name="tournaments"),
    path("tournaments/new/", tournaments.new_tournament, name="new_tournament"),
    path("tournaments/<int:tournament_id>/", tournaments.tournament_page, name="tournament"),
    path("tournaments/<int:tournament_id>/join/", tournaments.join_tournament, name="join_tournament"),
    path("tournaments/<int:tournament_id>/pause/", tournaments.pause_tournament, name="pause_tournament"),
    path("tournaments/<int:tournament_id>/resume/", tournaments.resume_tournament, name="resume_tournament"),
    path("tournaments/<int:tournament_id>/withdraw/", tournaments.withdraw_tournament, name="withdraw_tournament"),
    path("tournaments/<int:tournament_id>/start/", tournaments.start_tournament, name="start_tournament"),
    path("rules/", rulebook.rules_index, name="rules_index"),
    path("mail/verify/<str:token>/", mail.verify, name="mail_verify"),
    path("mail/unsubscribe/<str:token>/", mail.unsubscribe, name="mail_unsubscribe"),
    path("mail/settings/", mail.settings_view, name="mail_settings"),
    path("rules/<slug:game>/", rulebook.rules_page, name="rules"),
]
