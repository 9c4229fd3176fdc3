"""ASGI entry point: HTTP to Django; WebSockets through the origin check (config/origins.py) and auth to the
game consumers."""

import gc
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from accounts.socket_auth import AuthStack  # noqa: E402  (needs the app registry loaded)
from config.origins import SameOriginValidator  # noqa: E402
from games.api.outlet import OutletMiddleware  # noqa: E402
from games.play.scheduler import BotRunnerMiddleware  # noqa: E402
from games.routing import websocket_urlpatterns  # noqa: E402

router = ProtocolTypeRouter(
    {
        # The Bot API's streams learn how much their reader left unread (games.api.outlet).
        "http": OutletMiddleware(django_asgi_app),
        "websocket": SameOriginValidator(AuthStack(URLRouter(websocket_urlpatterns))),
    }
)
# The bot runner starts with the first request or socket this process serves.
application = BotRunnerMiddleware(router)

# The collector's pauses were a tenth to a sixth of a live move's CPU: every move allocates thousands of
# short-lived containers (states, views, template contexts), and the default first generation (700 objects) ran a
# collection every few moves, walking what the site loaded at start with each older generation. What start-up
# loaded is frozen out of the collections, and they run less often (bench/live.py -m 100 --moves 50, alternated in
# one run: 361-396 moves/s and 2.38-2.66 ms of CPU a move with the defaults; 426-435 and 2.16-2.22 ms with these;
# freezing alone: 388, 2.45 ms). GAMES_GC_THRESHOLDS overrides them, to measure: in a club at N=100 (bench/club.py,
# two runs each, 30 s) the defaults paused the loop 93-96 ms in 195 first-generation and 95 ms in 17 second-generation
# collections, and once 53-58 ms in the oldest; these 48-52 ms in 4 first-generation ones (longest 15-17 ms) and none
# older; 2,000 in between. None of them set the loop's longest stalls (38-63 ms, wherever the loop was).
gc.collect()
gc.freeze()
gc.set_threshold(*(int(part) for part in os.environ.get("GAMES_GC_THRESHOLDS", "10000,10,100").split(",")))
