"""Account pages under /accounts/ that Django's django.contrib.auth.urls doesn't provide."""

from django.urls import path

from . import views

urlpatterns = [
    path("signup/", views.signup, name="signup"),
    path("profile/", views.profile_edit, name="profile_edit"),
]
