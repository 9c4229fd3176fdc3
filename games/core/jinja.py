"""The Jinja2 environment of the live table's templates (templates/jinja2/): fragments and game tables.

Django's Jinja2 backend builds it from settings.TEMPLATES through `environment()`. What it adds to Jinja2:

- `url(name, *args)` (django.urls.reverse) and `static(path)`, as in Django templates;
- the `card_face` and `pluralize` filters, and `piece(...)`, a small macro's HTML remembered by its values;
- keys of a dict read first with `a.b`, as Django templates do: a presenter's {"clear": ...} or {"count": ...}
  must not turn into the dict's method of that name (Jinja2 reads the attribute first), and it is faster;
- `Missing` for what is not there: false in a test, an error anywhere else (see its docstring).

Django's safe strings (mark_safe, format_html, the log's sentences) implement __html__, so Jinja2 leaves them
unescaped; what Jinja2 draws is plain text to Django: wrap it in mark_safe to put it in a Django template.
"""

from __future__ import annotations

from types import FunctionType
from typing import Any

import jinja2
import jinja2.runtime
from django.templatetags.static import static
from django.urls import reverse
from markupsafe import Markup

from .memo import Memo


class Missing(jinja2.ChainableUndefined, jinja2.StrictUndefined):
    """A variable or key that is not there.

    Presenters leave optional keys out (a board cell without a card has no "top", a slot without a control no
    "control"), and templates test them as the Django templates did: `{% if cell.hx %}`,
    `{% if slot.control.selected %}`, `{% if cell.score is not none %}`. So a missing key is false in a test
    (`if`, `and`, `or`, `not`), is none (the `none` test, as Django's `is None`), and reading further from it
    gives it again; but printing it, looping over it, comparing it or doing sums with
    it raises, where Jinja2's default Undefined prints nothing: `{{ cell.aira }}`, `{% for c in table.hnad %}`
    or `{% if cell.kidn == "up" %}` fail the tests instead of drawing a blank. StrictUndefined would also fail
    every test of an optional key, and Jinja2's Undefined every read from one (`slot.control.selected`).
    """

    __slots__ = ()

    def __bool__(self) -> bool:  # type: ignore[override]  # StrictUndefined raises here; a missing key is false
        return False


class Context(jinja2.runtime.Context):
    """Jinja2's context, with a short way to call a plain function or a macro from a template.

    Jinja2 sends every call through Context.call, which looks for pass_context and the like on the callable
    and its __call__ every time: about 2.5 µs a call, as much as drawing a remembered board cell."""

    def call(__self, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        if type(__obj) in _PLAIN and not hasattr(__obj, "jinja_pass_arg"):
            kwargs.pop("_block_vars", None)
            kwargs.pop("_loop_vars", None)
            try:
                return __obj(*args, **kwargs)
            except StopIteration:
                return __self.environment.undefined("value was undefined because a callable raised a"
                                                    " StopIteration exception")
        return super().call(__obj, *args, **kwargs)


_PLAIN = (FunctionType, jinja2.runtime.Macro, jinja2.runtime.BlockReference)


class Environment(jinja2.Environment):
    """Jinja2 with Django's order of look-ups for `a.b` on a dict: the key, and only then the attribute."""

    context_class = Context

    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict:
            try:
                return obj[attribute]
            except KeyError:
                return self.undefined(obj=obj, name=attribute)
        try:  # the typed meta and its players (dataclasses): their attribute, without Jinja2's own detour
            return getattr(obj, attribute)
        except AttributeError:
            return super().getattr(obj, attribute)


def url(name: str, *args: Any, **kwargs: Any) -> str:
    return reverse(name, args=args or None, kwargs=kwargs or None)


_faces: Memo[Markup] = Memo(4096)
_pieces: Memo[Markup] = Memo(16384)  # a hundred live boards keep their cells; about 10 MB at most
# The rank and suit are drawn for the eyes; a screen reader hears the card's name in words ("7 of hearts").
_CARD = Markup(
    '<span class="{}" title="{}"><span class="card-rank" aria-hidden="true">{}</span>'
    '<span class="card-suit" aria-hidden="true">{}</span><span class="visually-hidden">{}</span></span>'
)


def card_face(card: dict[str, Any] | None) -> Markup | str:
    """A face-up card from games.presenters.card(); the accessible name rides along for screen readers."""
    if not card:
        return ""
    key = (card["name"], card["rank"], card["suit"], card["red"], card.get("joker"), card.get("spoken"))
    return _faces.get(key, lambda: _card_face(card))


def _card_face(card: dict[str, Any]) -> Markup:
    classes = "card" + (" card-red" if card["red"] else "") + (" card-joker" if card.get("joker") else "")
    return _CARD.format(classes, card["name"], card["rank"], card["suit"], card.get("spoken") or card["name"])


def pluralize(value: Any, suffix: str = "s") -> str:
    """Django's pluralize: "s" unless the number (or the length of a list) is 1."""
    try:
        return "" if float(value) == 1 else suffix
    except (TypeError, ValueError):
        try:
            return "" if len(value) == 1 else suffix
        except TypeError:
            return ""


def is_none(value: Any) -> bool:
    """The `none` test: None, or a key that is not there (as Django's `is None` takes it)."""
    return value is None or isinstance(value, Missing)


_environment: Environment | None = None


def piece(name: str, **values: Any) -> Markup:
    """A small macro's HTML ("games/tables/gomori.html#cell": the template, then the macro), drawn from its
    arguments alone and remembered by their value: a board's cells mostly stay as they were from one move to
    the next, and drawing each again dominated a move's cost. The HTML comes from the arguments only, so it
    can't carry one viewer's view to another."""
    key = (name, repr(sorted(values.items())))
    return _pieces.get(key, lambda: draw_piece(name, **values))


def draw_piece(name: str, **values: Any) -> Markup:
    """A small macro's HTML, drawn now (piece remembers it; games.presenters.gomori remembers its cells itself)."""
    template_name, macro = name.split("#")
    return Markup(getattr(fragments_environment().get_template(template_name).module, macro)(**values))


def render_block(template_name: str, block: str, context: dict[str, Any]) -> str:
    """One block of a template drawn with this context (the rest of the template is not drawn).

    The context is made here rather than by Template.new_context, which reads the template's globals (a
    ChainMap) twice, item by item: that took 10 µs, most of the time a small fragment takes."""
    env = fragments_environment()
    template = env.get_template(template_name)
    render = template.blocks[block]
    try:
        return "".join(render(env.context_class(env, {**env.globals, **context}, template.name, template.blocks)))
    except Exception:
        return env.handle_exception()  # the error, its traceback at the template's lines


def fragments_environment() -> Environment:
    """The environment Django's Jinja2 backend made (settings.TEMPLATES)."""
    global _environment
    if _environment is None:
        # Imported here: start-up order (this module is the Jinja2 backend's environment factory, which Django's
        # template engines import while they are being set up).
        from django.template import engines

        _environment = engines["jinja2"].env  # type: ignore[attr-defined]  # the Jinja2 backend has .env
    return _environment


def environment(**options: Any) -> Environment:
    """The environment of Django's Jinja2 backend (settings.TEMPLATES); `Missing` replaces the backend's
    default (DebugUndefined in debug, which prints the missing name into the page, Undefined otherwise)."""
    options["undefined"] = Missing
    options.setdefault("trim_blocks", True)
    options.setdefault("lstrip_blocks", True)
    env = Environment(**options)
    env.globals.update(url=url, static=static, piece=piece)
    env.filters.update(card_face=card_face, pluralize=pluralize)
    env.tests["none"] = is_none
    return env
