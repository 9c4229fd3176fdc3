"""Account pages under /accounts/ that Django's django.contrib.auth.urls doesn't provide."""

from django.urls import path

from . import views

urlpatterns = [
    # Before django.contrib.auth.urls' own "login/" and "logout/" (config/urls.py): the form that names a
    # suspension, and the site's one check of `next` (accounts.redirects).
    path("login/", views.SignInView.as_view(), name="login"),
    path("logout/", views.SignOutView.as_view(), name="logout"),
    path("signup/", views.signup, name="signup"),
    path("profile/", views.profile_edit, name="profile_edit"),
    path("profile/time-zone/", views.time_zone_edit, name="time_zone"),
    path("sounds/", views.sounds, name="sounds"),
]
