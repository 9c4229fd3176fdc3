"""Public profile pages and generated avatars, at the site root: /u/<username>/; the gallery's pictures."""

from django.urls import path

from . import views

urlpatterns = [
    path("u/<str:username>/", views.profile, name="profile"),
    path("u/<str:username>/avatar.svg", views.generated_avatar, name="generated_avatar"),
    path("avatars/<str:key>.svg", views.gallery_avatar, name="gallery_avatar"),
]
