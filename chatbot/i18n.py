"""German (default) and English texts. ``tr(lang, key, **values)``."""

from __future__ import annotations

import re

DEFAULT_LANGUAGE = "de"
LANGUAGES = ("de", "en")

_DE: dict[str, str] = {
    "join_names": "{names} und {last}",
    # general
    "welcome": "Servus! Ich bin der Stammtisch-Bot. Hier spielt ihr Schwimmen, Einunddreißig "
               "(Scat), Run Fast und Joker-Aufstieg – in der Gruppe miteinander oder privat "
               "gegen CPU-Spieler.\n\n/new – neues Spiel\n/help – Hilfe\n/rules – Regeln\n"
               "/language – Sprache",
    "help": "So geht's:\n• Privat: /new, Spiel und Gegner wählen, mit den Knöpfen spielen.\n"
            "• Gruppe: /new öffnet einen Tisch, Mitspieler drücken „Mitmachen“, der Eröffner "
            "drückt „Starten“. Deine Karten und Züge bekommst du privat von mir.\n"
            "• /new schwimmen (oder scat, runfast, climbing) öffnet gleich dieses Spiel.\n"
            "• /rules fragt, welche Regeln; /rules scat zeigt sie gleich, am laufenden Tisch "
            "zeigt /rules die seines Spiels.\n"
            "• /stop beendet den Tisch (Eröffner oder Admin).",
    "rules_which": "Welche Spielregeln?",
    "replace_running": "Hier läuft noch ein Spiel ({running}, Tisch #{id}). Beenden und "
                       "{game} neu beginnen?",
    "replace_yes": "Ja, neu beginnen",
    "replace_no": "Nein, weiterspielen",
    "replace_kept": "Gut – das Spiel läuft weiter.",
    "rules_table_options": "Dieser Tisch (#{id}) spielt mit: {options}",
    "seated_at": "Du sitzt am Tisch #{id} ({game}) in „{group}“. Deine Karten und Züge "
                 "bekommst du hier.",
    "language_menu": "Sprache wählen:",
    "language_set": "Sprache: Deutsch.",
    "choose_game": "Welches Spiel?",
    "choose_opponents": "{game}: Wie viele CPU-Gegner?",
    "choose_level": "{game} gegen {n} CPU-Gegner: Welche Stärke?",
    "level_anfaenger": "Anfänger",
    "level_normal": "Normal",
    "level_experte": "Experte",
    "unknown_command": "Das verstehe ich nicht. /help zeigt, was geht.",
    "unknown_button": "Dieser Knopf gehört nicht zu mir.",
    "stale_button": "Dieser Knopf ist veraltet – bitte die aktuelle Nachricht benutzen.",
    "not_your_turn": "Du bist gerade nicht am Zug.",
    "not_seated": "Du sitzt nicht an diesem Tisch.",
    "illegal": "Dieser Zug geht nicht: {reason}",
    "table_gone": "Diesen Tisch gibt es nicht mehr.",
    "table_over": "Dieses Spiel ist schon vorbei.",
    "already_handled": "Schon erledigt.",
    "ok": "OK",
    "busy_table": "In diesem Chat läuft schon ein Tisch. /stop beendet ihn.",
    "group_only": "Das geht nur in einer Gruppe.",
    "private_only": "Das geht nur im privaten Chat mit mir.",
    "no_table": "Hier läuft gerade kein Tisch. /new startet einen.",
    "stopped": "Der Tisch wurde beendet.",
    "stop_denied": "Beenden kann den Tisch nur, wer ihn eröffnet hat, oder ein Admin.",
    "kick_denied": "Andere hinausbitten kann nur, wer den Tisch eröffnet hat, oder ein Admin.",
    "clock_denied": "Die Bedenkzeit stellt nur, wer den Tisch eröffnet hat, oder ein Admin.",
    "options_denied": "Die Einstellungen des Tisches ändert nur, wer ihn eröffnet hat, oder "
                      "ein Admin.",
    "slow_down": "Langsam, bitte – so schnell komme ich nicht mit. Gleich geht's weiter.",
    "language_denied": "Die Sprache der Gruppe können nur Admins ändern – und wer den "
                       "laufenden Tisch eröffnet hat.",
    "seated_only": "Das können nur die Spieler dieses Tisches (oder ein Admin).",
    # lobby
    "lobby": "🃏 {game} – neuer Tisch\nEröffnet von {opener}. Mitspieler ({count}):\n{players}",
    "lobby_empty": "(noch niemand)",
    "join": "Mitmachen",
    "leave": "Aussteigen",
    "start": "Starten",
    "stop": "Beenden",
    "joined": "Du bist dabei.",
    "left": "Du bist ausgestiegen.",
    "already_joined": "Du bist schon dabei.",
    "table_full": "Der Tisch ist voll.",
    "need_players": "Es braucht {min} bis {max} Mitspieler.",
    "start_denied": "Starten kann nur, wer den Tisch eröffnet hat, oder ein Admin.",
    "fill_cpu_on": "Freie Plätze: CPU ✓",
    "fill_cpu_off": "Freie Plätze: keine CPU",
    "started": "Los geht's!",
    "kick": "{name} entfernen",
    "kicked": "{name} wurde vom Tisch genommen.",
    # game
    "round": "Runde {n}",
    "on_turn": "👉 Am Zug: {name}",
    "your_turn": "👉 Du bist am Zug.",
    "waiting_for": "Warte auf {name} …",
    "spectator": "✖ Du bist ausgeschieden – du schaust zu.",
    "skip_to_result": "⏩ Zum Ergebnis",
    "skip_not_out": "Das geht erst, wenn du ausgeschieden bist.",
    "my_cards": "🂠 Meine Karten",
    "log_button": "📜 Verlauf",
    "log_title": "📜 Tisch #{id}, alle Züge dieser Runde:",
    "log_empty": "📜 In dieser Runde ist noch nichts passiert.",
    "log_sent": "Den Verlauf habe ich dir privat geschickt.",
    "im_back": "Bin wieder da",
    "next_round": "Nächste Runde",
    "play_again": "Nochmal spielen",
    "new_game": "Neues Spiel",
    "last_move": "Zuletzt: {text}",
    "hand_private_hint": "Deine Karten und Züge schicke ich dir privat.",
    "start_bot_hint": "{names}: Bitte starte mich einmal privat, damit ich dir deine Karten "
                      "schicken kann: {link}|"
                      "{names}: Bitte startet mich einmal privat, damit ich euch eure Karten "
                      "schicken kann: {link}",
    "reminder": "⏰ {mention}, du bist am Zug (noch {seconds} s).",
    "timed_out": "⌛ {name} war zu langsam – die CPU hat für {name} gezogen.",
    "now_away": "💤 {name} ist abwesend; die CPU spielt, bis „Bin wieder da“ gedrückt wird.",
    "back": "👋 {name} ist wieder da.",
    "you_are_back": "Willkommen zurück!",
    "away_mark": "💤",
    "cpu_mark": "🤖",
    "winner": "🏆 {name} gewinnt das Spiel!",
    "winners": "🏆 Gewinner: {names}",
    "game_over": "Spiel vorbei.",
    "between_rounds": "Die Runde ist vorbei – gleich geht es weiter.",
    "abandoned": "Tisch beendet.",
    "quit_hint": "q = beenden (der Tisch bleibt gespeichert)",
}

_EN: dict[str, str] = {
    "join_names": "{names} and {last}",
    "welcome": "Hi! I'm the Stammtisch bot. Play Schwimmen, Einunddreißig (Scat), Run Fast and "
               "Joker Climb here – together in a group or privately against CPU players.\n\n"
               "/new – new game\n/help – help\n/rules – rules\n/language – language",
    "help": "How it works:\n• Private: /new, choose the game and opponents, play with the buttons.\n"
            "• Group: /new opens a table, players press “Join”, the opener presses “Start”. "
            "I send you your cards and moves privately.\n"
            "• /new schwimmen (or scat, runfast, climbing) opens that game at once.\n"
            "• /rules asks which rules; /rules scat shows them at once, at a running table "
            "/rules shows its game's.\n"
            "• /stop ends the table (opener or admin).",
    "rules_which": "Rules of which game?",
    "replace_running": "A game is still running here ({running}, table #{id}). End it and "
                       "start {game}?",
    "replace_yes": "Yes, start anew",
    "replace_no": "No, keep playing",
    "replace_kept": "Fine – the game goes on.",
    "rules_table_options": "This table (#{id}) plays with: {options}",
    "seated_at": "You're seated at table #{id} ({game}) in “{group}”. Your cards and moves "
                 "come here.",
    "language_menu": "Choose a language:",
    "language_set": "Language: English.",
    "choose_game": "Which game?",
    "choose_opponents": "{game}: how many CPU opponents?",
    "choose_level": "{game} against {n} CPU opponents: which level?",
    "level_anfaenger": "Beginner",
    "level_normal": "Normal",
    "level_experte": "Expert",
    "unknown_command": "I don't understand that. /help shows what I can do.",
    "unknown_button": "That button isn't one of mine.",
    "stale_button": "That button is out of date – please use the current message.",
    "not_your_turn": "It's not your turn.",
    "not_seated": "You're not seated at this table.",
    "illegal": "That move isn't allowed: {reason}",
    "table_gone": "That table no longer exists.",
    "table_over": "That game is already over.",
    "already_handled": "Already done.",
    "ok": "OK",
    "busy_table": "A table is already open in this chat. /stop ends it.",
    "group_only": "That only works in a group.",
    "private_only": "That only works in a private chat with me.",
    "no_table": "No table is open here. /new starts one.",
    "stopped": "The table was closed.",
    "stop_denied": "Only the opener of the table or an admin can close it.",
    "kick_denied": "Only the opener of the table or an admin can remove players.",
    "clock_denied": "Only the opener of the table or an admin can set the turn clock.",
    "options_denied": "Only the opener of the table or an admin can change its settings.",
    "slow_down": "Slow down, please – I can't keep up. Back in a moment.",
    "language_denied": "Only admins – and whoever opened the running table – can change "
                       "the group's language.",
    "seated_only": "Only the players at this table (or an admin) can do that.",
    "lobby": "🃏 {game} – new table\nOpened by {opener}. Players ({count}):\n{players}",
    "lobby_empty": "(nobody yet)",
    "join": "Join",
    "leave": "Leave",
    "start": "Start",
    "stop": "Close",
    "joined": "You're in.",
    "left": "You left the table.",
    "already_joined": "You're already in.",
    "table_full": "The table is full.",
    "need_players": "It takes {min} to {max} players.",
    "start_denied": "Only the opener or an admin can start.",
    "fill_cpu_on": "Empty seats: CPU ✓",
    "fill_cpu_off": "Empty seats: no CPU",
    "started": "Let's go!",
    "kick": "Remove {name}",
    "kicked": "{name} was removed from the table.",
    "round": "Round {n}",
    "on_turn": "👉 To play: {name}",
    "your_turn": "👉 It's your turn.",
    "waiting_for": "Waiting for {name} …",
    "spectator": "✖ You're out – you're watching.",
    "skip_to_result": "⏩ Skip to the result",
    "skip_not_out": "That works once you're out.",
    "my_cards": "🂠 My cards",
    "log_button": "📜 Log",
    "log_title": "📜 Table #{id}, every move of this round:",
    "log_empty": "📜 Nothing has happened in this round yet.",
    "log_sent": "I sent you the log privately.",
    "im_back": "I'm back",
    "next_round": "Next round",
    "play_again": "Play again",
    "new_game": "New game",
    "last_move": "Last: {text}",
    "hand_private_hint": "I'll send you your cards and moves privately.",
    "start_bot_hint": "{names}: please start me once in private so I can send you your cards: "
                      "{link}",
    "reminder": "⏰ {mention}, it's your turn ({seconds} s left).",
    "timed_out": "⌛ {name} ran out of time – the CPU moved for {name}.",
    "now_away": "💤 {name} is away; the CPU plays until “I'm back” is pressed.",
    "back": "👋 {name} is back.",
    "you_are_back": "Welcome back!",
    "away_mark": "💤",
    "cpu_mark": "🤖",
    "winner": "🏆 {name} wins the game!",
    "winners": "🏆 Winners: {names}",
    "game_over": "Game over.",
    "between_rounds": "The round is over – the next one is coming.",
    "abandoned": "Table closed.",
    "quit_hint": "q = quit (the table is kept)",
}

_TEXTS = {"de": _DE, "en": _EN}


def register(lang: str, texts: dict[str, str]) -> None:
    """Add texts (used by the game presenters)."""
    _TEXTS[lang].update(texts)


def tr(lang: str | None, key: str, **values: object) -> str:
    """The text for ``key`` in ``lang`` (falls back to German, then to the key). A text with
    two forms, ``singular|plural``, is chosen by the value ``n`` (German and English both say
    one thing for 1 and another for every other number)."""
    table = _TEXTS.get(lang or DEFAULT_LANGUAGE, _DE)
    text = table[key] if key in table else _DE.get(key, key)
    if "|" in text and "n" in values:
        one, _, other = text.partition("|")
        text = one if values["n"] == 1 else other
    return text.format(**values) if values else text


def join_names(names: list[str], lang: str | None) -> str:
    """``A``, ``A und B``, ``A, B und C`` (English: and)."""
    if len(names) <= 1:
        return "".join(names)
    return tr(lang, "join_names", names=", ".join(names[:-1]), last=names[-1])


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


# The engine explains a refused move in English; German chats get these words instead.
_REASONS_DE: dict[str, str] = {
    "a straight is only beaten by the straight of the same length exactly one higher":
        "eine Straße schlägt nur die gleich lange Straße genau eins höher",
    "a triple or airplane with fewer kickers only as your last cards":
        "ein Drilling oder Flugzeug mit weniger Beikarten nur als letzte Karten",
    "draw a card first (stock or discard pile), then discard":
        "erst eine Karte ziehen (Stapel oder Ablage), dann abwerfen",
    "first the exchange: give back one card ranked 4 to 10":
        "erst der Tausch: gib eine Karte von 4 bis 10 zurück",
    "no knocking on your very first turn of the round":
        "im allerersten Zug der Runde darf nicht geklopft werden",
    "nobody may pass after a knock": "nach dem Klopfen darf niemand schieben",
    "only a higher four of a kind beats a four of a kind":
        "einen Vierling schlägt nur ein höherer Vierling",
    "passing is only allowed after a knock or when the stock is empty":
        "Passen geht nur nach dem Klopfen oder wenn der Stapel leer ist",
    "the stock is empty": "der Stapel ist leer",
    "the discard pile is empty": "der Ablagestapel ist leer",
    "somebody has already knocked": "es hat schon jemand geklopft",
    "that does not beat the play on the table": "das schlägt die Karten auf dem Tisch nicht",
    "that is not higher than the play on the table":
        "das ist nicht höher als die Karten auf dem Tisch",
    "the first play of the game must include 3♠": "das erste Ausspiel muss die ♠3 enthalten",
    "the game is over": "das Spiel ist vorbei",
    "the hand is over; the next one must be dealt first":
        "das Spiel ist aus; erst wird neu gegeben",
    "the match is over": "die Partie ist vorbei",
    "the next player has one card: a single must be your highest":
        "der Nächste hat nur noch eine Karte: eine Einzelkarte muss deine höchste sein",
    "the round is over; the next one must be dealt first":
        "die Runde ist vorbei; erst wird neu gegeben",
    "there is no exchange now": "jetzt wird nicht getauscht",
    "these cards are no combination": "diese Karten sind keine Kombination",
    "you can beat the play on the table, so you must":
        "du kannst die Karten auf dem Tisch schlagen, also musst du",
    "you have already passed this round": "du hast in dieser Runde schon geschoben",
    "you have drawn a card: now discard one card":
        "du hast gezogen: jetzt wirf eine Karte ab",
    "you lead: play any combination": "du spielst aus: lege eine beliebige Kombination",
    "you lead: play a card or a combination":
        "du spielst aus: lege eine Karte oder eine Kombination",
    "the round is still being played": "die Runde läuft noch",
    "the hand is still being played": "das Spiel läuft noch",
}
_KINDS_DE = {"single": "eine Einzelkarte", "pair": "ein Paar", "triple": "ein Drilling",
             "four of a kind": "ein Vierling"}


def _kind_de(kind: str) -> str:
    match = re.fullmatch(r"straight of (\d+)", kind)
    if match:
        return f"eine {match.group(1)}er-Straße"
    return _KINDS_DE.get(kind, kind)
_REASON_PATTERNS_DE: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"^(.+) is not in your hand$"), r"\1 ist nicht in deiner Hand"),
    (re.compile(r"^(.+) not in your hand$"), r"\1 nicht in deiner Hand"),
    (re.compile(r"^(.+) is not in the middle$"), r"\1 liegt nicht in der Mitte"),
    (re.compile(r"^the four (.+)s stay together as a bomb$"),
     r"die vier \1 bleiben als Bombe zusammen"),
    (re.compile(r"^(.+) was taken from the discard pile and may not be discarded again in the "
                r"same turn$"), r"\1 kam von der Ablage und darf im selben Zug nicht zurück"),
    (re.compile(r"^unknown move .*$"), "unbekannter Zug"),
    (re.compile(r"^no such straight .*$"), "eine Straße geht nicht über das Ass hinaus"),
]


def engine_reason(lang: str | None, reason: str) -> str:
    """The engine's explanation of a refused move in ``lang`` (English as the engine says it;
    German by table, or a plain "not allowed" for a reason the table does not know)."""
    if (lang or DEFAULT_LANGUAGE) == "en":
        return reason
    if reason in _REASONS_DE:
        return _REASONS_DE[reason]
    beaten = re.fullmatch(r"a (.+) must be beaten by a (.+) or a four of a kind", reason)
    if beaten:
        return (f"{_kind_de(beaten.group(1))} wird nur von {_kind_de(beaten.group(2))} oder "
                "einem Vierling geschlagen").replace("von ein ", "von einem ") \
            .replace("von eine ", "von einer ")
    for pattern, replacement in _REASON_PATTERNS_DE:
        if pattern.match(reason):
            return pattern.sub(replacement, reason)
    return "nicht erlaubt"
