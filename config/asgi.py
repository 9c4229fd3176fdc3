"""ASGI entry point: HTTP to Django; WebSockets through the origin check (config/origins.py) and auth to the
game consumers."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402  (needs the app registry loaded)
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from config.origins import SameOriginValidator  # noqa: E402
from games.play.scheduler import BotRunnerMiddleware  # noqa: E402
from games.routing import websocket_urlpatterns  # noqa: E402

router = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": SameOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
    }
)
# The bot runner starts with the first request or socket this process serves.
application = BotRunnerMiddleware(router)
