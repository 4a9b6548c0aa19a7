"""Player-facing texts in gettext catalogs: ``tr(lang, key, **values)``.

Each module declares its texts once, in English (the source language), under stable keys::

    register({"welcome": N_("Hi! ..."), "cards_left": NN_("{n} card", "{n} cards")})

``N_`` marks a text, ``NN_`` one with a plural form (chosen by the value ``n``), ``NP_`` and
``NNP_`` a text with a context, for a word that needs two translations ("Pass" is "Passen" in
Run Fast, "Schieben" in Schwimmen). Babel extracts the marked texts into
``chatbot/locale/stammtisch.pot``; each other language is a ``.po`` file beside it, compiled
to ``.mo`` (``stammtisch-texts`` in ``chatbot/catalogs.py`` extracts, updates and compiles).
A language is spoken as soon as its compiled catalog is there: ``LANGUAGES`` lists them.
"""

from __future__ import annotations

import gettext
import os
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from babel import Locale
from babel.support import Translations

DOMAIN = "stammtisch"
# (an operator may ship extra catalogs: STAMMTISCH_LOCALE_DIR, a copy of chatbot/locale plus
# their own .po/.mo)
LOCALE_DIR = Path(os.environ.get("STAMMTISCH_LOCALE_DIR") or Path(__file__).parent / "locale")
SOURCE_LANGUAGE = "en"  # the language of the texts in the code
DEFAULT_LANGUAGE = "de"


def _shipped() -> tuple[str, ...]:
    """German first (the default), then English, then every other compiled catalog."""
    found = {p.parent.parent.name for p in LOCALE_DIR.glob(f"*/LC_MESSAGES/{DOMAIN}.mo")}
    rest = sorted(found - {DEFAULT_LANGUAGE, SOURCE_LANGUAGE})
    return (DEFAULT_LANGUAGE, SOURCE_LANGUAGE, *rest)


LANGUAGES = _shipped()


@dataclass(frozen=True)
class Text:
    """A text as the code declares it: the English message (and plural), maybe a context."""

    msgid: str
    plural: str | None = None
    context: str | None = None

    def translated(self, translations: gettext.NullTranslations, n: int) -> str:
        if self.plural is None:
            if self.context is None:
                return translations.gettext(self.msgid)
            return translations.pgettext(self.context, self.msgid)
        if self.context is None:
            return translations.ngettext(self.msgid, self.plural, n)
        return translations.npgettext(self.context, self.msgid, self.plural, n)


def N_(msgid: str) -> Text:  # noqa: N802  (gettext's name for a marked, not yet translated text)
    return Text(msgid)


def NN_(singular: str, plural: str) -> Text:  # noqa: N802
    return Text(singular, plural)


def NP_(context: str, msgid: str) -> Text:  # noqa: N802
    return Text(msgid, context=context)


def NNP_(context: str, singular: str, plural: str) -> Text:  # noqa: N802
    return Text(singular, plural, context)


_MESSAGES: dict[str, Text] = {}


def register(texts: dict[str, Text]) -> None:
    """Declare texts by key (each module its own; a key is declared once)."""
    for key, text in texts.items():
        if _MESSAGES.get(key, text) != text:
            raise ValueError(f"text {key!r} is declared twice")
        _MESSAGES[key] = text


def messages() -> dict[str, Text]:
    """Every declared text by key (import ``chatbot.service`` first to have them all)."""
    return dict(_MESSAGES)


@cache
def translations(lang: str | None) -> gettext.NullTranslations:
    """The catalog of ``lang``: English is the code's own text; a language without a catalog
    falls back to German."""
    lang = lang or DEFAULT_LANGUAGE
    if lang == SOURCE_LANGUAGE:
        return gettext.NullTranslations()
    if lang not in LANGUAGES:
        lang = DEFAULT_LANGUAGE
    return Translations.load(str(LOCALE_DIR), [lang], DOMAIN)


def _count(value: object) -> int:
    try:
        return int(value)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return 2  # (not a number: the "many" form)


def tr(lang: str | None, key: str, **values: object) -> str:
    """The text for ``key`` in ``lang``, filled in with ``values`` (a text with a plural form
    is chosen by the value ``n``, by the language's own plural rule). An unknown key is
    returned as it is."""
    text = _MESSAGES.get(key)
    if text is None:
        return key
    out = text.translated(translations(lang), _count(values.get("n", 1)))
    return out.format(**values) if values else out


class Names(list[str]):
    """Seat names as one reader sees them: ``you`` is the reader's seat, whose own moves are
    told in the second person."""

    def __init__(self, names: list[str], you: int | None = None) -> None:
        super().__init__(names)
        self.you = you


def tr_seat(lang: str | None, key: str, names: list[str], seat: object,
            **values: object) -> str:
    """A line about what ``seat`` did (its name as ``{name}``), told to the reader in the
    second person (the text ``<key>.you``) when it is the reader's own move."""
    if isinstance(names, Names) and seat == names.you and f"{key}.you" in _MESSAGES:
        return tr(lang, f"{key}.you", **values)
    name = names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else "?"
    return tr(lang, key, name=name, **values)


def join_names(names: list[str], lang: str | None) -> str:
    """``A``, ``A und B``, ``A, B und C`` (English: and)."""
    if len(names) <= 1:
        return "".join(names)
    return tr(lang, "join_names", names=", ".join(names[:-1]), last=names[-1])


def language_name(code: str) -> str:
    """A language's name in itself, as Babel's locale data has it ("Deutsch", "English")."""
    name = Locale.parse(code).get_display_name(code) or code
    return name[:1].upper() + name[1:]


def pick_language(chat_language: str | None, user_language: str | None,
                  default: str = DEFAULT_LANGUAGE) -> str:
    """The chat's choice wins; else the user's language if we speak it; else the default."""
    if chat_language in LANGUAGES:
        return chat_language  # type: ignore[return-value]
    if user_language:
        short = user_language.split("-")[0].lower()
        if short in LANGUAGES:
            return short
    return default


register({
    "join_names": N_("{names} and {last}"),
    "welcome": N_(
        "Hi! I'm the Stammtisch bot. Play Schwimmen, Einunddreißig (Scat), Run Fast and Joker "
        "Climb here – together in a group or privately against CPU players.\n\n/new – new game\n"
        "/games – your running tables\n/help – help\n/rules – rules\n/language – language"),
    "help": N_(
        "How it works:\n• Privately: {p}new, choose the game and the opponents, then play "
        "with the buttons.\n• In a group: {p}new opens a table; players tap “Join”, its "
        "opener taps “Start”. Your cards and moves come to you privately.\n• Typed in full, a "
        "game opens at once: {p}new schwimmen 2 experte, or {p}new schwimmen clock=12h for a "
        "long game (12 hours a turn).\n• {p}rules scat shows a game's rules at once."),
    "rules_which": N_("Rules of which game?"),
    "replace_running": N_("A game of {running} is still running here. End it and start {game}?"),
    "replace_yes": N_("Yes, start anew"),
    "replace_no": N_("No, keep playing"),
    "replace_kept": N_("Fine – the game goes on."),
    "rules_table_options": N_("This table plays with: {options}"),
    "seated_at": N_("You're playing {game} in “{group}”. Your cards and moves come here."),
    "language_menu": N_("Choose a language:"),
    "language_set": N_("Language: English."),
    "choose_game": N_("Which game?"),
    "choose_opponents": N_("{game}: how many CPU opponents?"),
    "choose_level": N_("{game} against {n} CPU opponents: which level?"),
    "level_anfaenger": N_("Beginner"),
    "level_normal": N_("Normal"),
    "level_experte": N_("Expert"),
    "unknown_command": N_("I don't understand that. /help shows what I can do."),
    "new_unknown": N_("I don't know “{word}” here. Try /new schwimmen 2 beginner, or just /new."),
    "new_count": N_("{game} is played against {low} to {high} CPU opponents."),
    "unknown_button": N_("That button isn't one of mine."),
    "stale_button": N_("That button is out of date – please use the current message."),
    "not_your_turn": N_("It's not your turn."),
    "not_seated": N_("You're not seated at this table."),
    "illegal": N_("That move isn't allowed: {reason}"),
    "table_gone": N_("That table no longer exists."),
    "table_over": N_("That game is already over."),
    "already_handled": N_("Already done."),
    "ok": N_("OK"),
    "busy_table": N_("A table is already open in this chat. /stop ends it."),
    "group_only": N_("That only works in a group."),
    "private_only": N_("That only works in a private chat with me."),
    "no_table": N_("No table is open here. /new starts one."),
    "stopped": N_("The table was closed."),
    "stop_denied": N_("Only the opener of the table or an admin can close it."),
    "kick_denied": N_("Only the opener of the table or an admin can remove players."),
    "clock_denied": N_("Only the opener of the table or an admin can set the turn clock."),
    "options_denied": N_("Only the opener of the table or an admin can change its settings."),
    "slow_down": N_("Slow down, please – I can't keep up. Back in a moment."),
    "language_denied": N_(
        "Only admins – and whoever opened the running table – can change the group's language."),
    "seated_only": N_("Only the players at this table (or an admin) can do that."),
    "lobby": N_("🃏 {game} – new table\nOpened by {opener}. Players ({count}):\n{players}"),
    "lobby_empty": N_("(nobody yet)"),
    "join": N_("Join"),
    "leave": N_("Leave"),
    "start": N_("Start"),
    "stop": N_("Close"),
    "joined": N_("You're in."),
    "left": N_("You left the table."),
    "already_joined": N_("You're already in."),
    "table_full": N_("The table is full."),
    "need_players": N_("It takes {min} to {max} players."),
    "start_denied": N_("Only the opener or an admin can start."),
    "fill_cpu_on": N_("Empty seats: CPU ✓"),
    "fill_cpu_off": N_("Empty seats: no CPU"),
    "started": N_("Let's go!"),
    "kick": N_("Remove {name}"),
    "kicked": N_("{name} was removed from the table."),
    "round": N_("Round {n}"),
    "on_turn": N_("👉 To play: {name}"),
    "your_turn": N_("👉 It's your turn."),
    "waiting_for": N_("Waiting for {name} …"),
    "spectator": N_("✖ You're out – you're watching."),
    "skip_to_result": N_("⏩ Skip to the result"),
    "skip_not_out": N_("That works once you're out."),
    "my_cards": N_("🂠 My cards"),
    "log_button": N_("📜 Log"),
    "log_title": N_("📜 {game}, every move of this round:"),
    "log_empty": N_("📜 Nothing has happened in this round yet."),
    "log_title_hand": N_("📜 {game}, every move of this hand:"),
    "log_empty_hand": N_("📜 Nothing has happened in this hand yet."),
    "log_sent": N_("I sent you the log privately."),
    "im_back": N_("I'm back"),
    "next_round": N_("Next round"),
    "next_hand": N_("Next hand"),
    "play_again": N_("Play again"),
    "new_game": N_("New game"),
    "last_move": N_("Last: {text}"),
    "hand_private_hint": N_("I'll send you your cards and moves privately."),
    "start_bot_hint": NN_(
        "{names}: please start me once in private so I can send you your cards: {link}",
        "{names}: please start me once in private so I can send you your cards: {link}"),
    "reminder": N_("⏰ {mention}, it's your turn ({seconds} s left)."),
    "timed_out": N_("⌛ {name} ran out of time – the CPU moved for {name}."),
    "now_away": N_("💤 {name} is away; the CPU plays until “I'm back” is pressed."),
    "back": N_("👋 {name} is back."),
    "you_are_back": N_("Welcome back!"),
    "away_mark": N_("💤"),
    "cpu_mark": N_("🤖"),
    "winner": N_("🏆 {name} wins the game!"),
    "winners": N_("🏆 Winners: {names}"),
    "game_over": N_("Game over."),
    "between_rounds": N_("The round is over – the next one is coming."),
    "between_hands": N_("The hand is over – the next one is coming."),
    "abandoned": N_("Table closed."),
    "quit_hint": N_("q = quit (the table is kept)"),
})


# The engine explains a refused move in English, in these words (context "engine"); a reason
# with a part that varies is matched by a pattern and its template translated.
_REASONS = [
    NP_("engine",
        "a straight is only beaten by the "
        "straight of the same length exactly one higher"),
    NP_("engine", "a triple or airplane with fewer kickers only as your last cards"),
    NP_("engine", "draw a card first (stock or discard pile), then discard"),
    NP_("engine", "first the exchange: give back one card ranked 4 to 10"),
    NP_("engine", "no knocking on your very first turn of the round"),
    NP_("engine", "nobody may pass after a knock"),
    NP_("engine", "only a higher four of a kind beats a four of a kind"),
    NP_("engine", "passing is only allowed after a knock or when the stock is empty"),
    NP_("engine", "the stock is empty"),
    NP_("engine", "the discard pile is empty"),
    NP_("engine", "somebody has already knocked"),
    NP_("engine", "that does not beat the play on the table"),
    NP_("engine", "that is not higher than the play on the table"),
    NP_("engine", "the first play of the game must include 3♠"),
    NP_("engine", "the game is over"),
    NP_("engine", "the hand is over; the next one must be dealt first"),
    NP_("engine", "the match is over"),
    NP_("engine", "the next player has one card: a single must be your highest"),
    NP_("engine", "the round is over; the next one must be dealt first"),
    NP_("engine", "there is no exchange now"),
    NP_("engine", "these cards are no combination"),
    NP_("engine", "you can beat the play on the table, so you must"),
    NP_("engine", "you have already passed this round"),
    NP_("engine", "you have drawn a card: now discard one card"),
    NP_("engine", "you lead: play any combination"),
    NP_("engine", "you lead: play a card or a combination"),
    NP_("engine", "the round is still being played"),
    NP_("engine", "the hand is still being played"),
]
_REASON_IDS = frozenset(text.msgid for text in _REASONS)
_REASON_PATTERNS: list[tuple[re.Pattern[str], Text]] = [
    (re.compile(r"^(?P<cards>.+) is not in your hand$"), NP_("engine", "{cards} is not in your hand")),
    (re.compile(r"^(?P<cards>.+) not in your hand$"), NP_("engine", "{cards} not in your hand")),
    (re.compile(r"^(?P<cards>.+) is not in the middle$"),
     NP_("engine", "{cards} is not in the middle")),
    (re.compile(r"^the four (?P<rank>.+)s stay together as a bomb$"),
     NP_("engine", "the four {rank}s stay together as a bomb")),
    (re.compile(r"^(?P<card>.+) was taken from the discard pile and may not be discarded again "
                r"in the same turn$"),
     NP_("engine", "{card} was taken from the discard pile and may not be discarded again in "
                   "the same turn")),
    (re.compile(r"^unknown move .*$"), NP_("engine", "unknown move")),
    (re.compile(r"^no such straight .*$"), NP_("engine", "a straight does not go past the ace")),
    (re.compile(r"^a (?P<kind>.+) must be beaten by a (?P<by>.+) or a four of a kind$"),
     NP_("engine", "a {kind} must be beaten by a {by} or a four of a kind")),
]
# the kinds of play in that last reason: as its subject, and after "by"
_KINDS = {
    "single": (NP_("engine: kind", "single"), NP_("engine: by kind", "single")),
    "pair": (NP_("engine: kind", "pair"), NP_("engine: by kind", "pair")),
    "triple": (NP_("engine: kind", "triple"), NP_("engine: by kind", "triple")),
    "four of a kind": (NP_("engine: kind", "four of a kind"),
                       NP_("engine: by kind", "four of a kind")),
}
_STRAIGHT = (NP_("engine: kind", "straight of {n}"), NP_("engine: by kind", "straight of {n}"))
register({"reason.unknown": N_("not allowed")})


def _kind(t: gettext.NullTranslations, kind: str, after_by: bool) -> str:
    straight = re.fullmatch(r"straight of (\d+)", kind)
    if straight:
        return _STRAIGHT[after_by].translated(t, 1).format(n=straight.group(1))
    texts = _KINDS.get(kind)
    return texts[after_by].translated(t, 1) if texts else kind


def engine_reason(lang: str | None, reason: str) -> str:
    """The engine's explanation of a refused move in ``lang`` (English as the engine says it;
    else from the catalog, or a plain "not allowed" for a reason the catalog does not know)."""
    if (lang or DEFAULT_LANGUAGE) == SOURCE_LANGUAGE:
        return reason
    t = translations(lang)
    if reason in _REASON_IDS:
        return NP_("engine", reason).translated(t, 1)
    for pattern, template in _REASON_PATTERNS:
        match = pattern.match(reason)
        if match:
            parts = match.groupdict()
            if "kind" in parts:
                parts = {"kind": _kind(t, parts["kind"], False), "by": _kind(t, parts["by"], True)}
            return template.translated(t, 1).format(**parts)
    return tr(lang, "reason.unknown")
