"""Account pages under /accounts/ that Django's django.contrib.auth.urls doesn't provide."""

from django.contrib.auth.views import LoginView
from django.urls import path

from . import views
from .forms import SignInForm

urlpatterns = [
    # Before django.contrib.auth.urls' own "login/" (config/urls.py): the form that names a suspension.
    path("login/", LoginView.as_view(authentication_form=SignInForm), name="login"),
    path("signup/", views.signup, name="signup"),
    path("profile/", views.profile_edit, name="profile_edit"),
    path("sounds/", views.sounds, name="sounds"),
]
