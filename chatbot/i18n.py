"""German (default) and English texts. ``tr(lang, key, **values)``."""

from __future__ import annotations

DEFAULT_LANGUAGE = "de"
LANGUAGES = ("de", "en")

_DE: dict[str, str] = {
    # general
    "welcome": "Servus! Ich bin der Stammtisch-Bot. Hier spielt ihr Schwimmen, Einunddreißig "
               "(Scat), Run Fast und Joker-Aufstieg – in der Gruppe miteinander oder privat "
               "gegen CPU-Spieler.\n\n/new – neues Spiel\n/help – Hilfe\n/rules – Regeln\n"
               "/language – Sprache",
    "help": "So geht's:\n• Privat: /new, Spiel und Gegner wählen, mit den Knöpfen spielen.\n"
            "• Gruppe: /new öffnet einen Tisch, Mitspieler drücken „Mitmachen“, der Eröffner "
            "drückt „Starten“. Deine Karten und Züge bekommst du privat von mir.\n"
            "• /stop beendet den Tisch (Eröffner oder Admin). /rules zeigt die Regeln.",
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
    "stop_denied": "Nur wer den Tisch eröffnet hat oder ein Admin kann das.",
    # lobby
    "lobby": "🃏 {game} – neuer Tisch\nEröffnet von {opener}. Mitspieler ({min}–{max}):\n{players}",
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
    "my_cards": "🂠 Meine Karten",
    "im_back": "Bin wieder da",
    "next_round": "Nächste Runde",
    "play_again": "Nochmal spielen",
    "new_game": "Neues Spiel",
    "last_move": "Zuletzt: {text}",
    "hand_private_hint": "Deine Karten und Züge schicke ich dir privat.",
    "start_bot_hint": "{names}: Bitte startet mich einmal privat, damit ich euch eure Karten "
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
    "welcome": "Hi! I'm the Stammtisch bot. Play Schwimmen, Einunddreißig (Scat), Run Fast and "
               "Joker Climb here – together in a group or privately against CPU players.\n\n"
               "/new – new game\n/help – help\n/rules – rules\n/language – language",
    "help": "How it works:\n• Private: /new, choose the game and opponents, play with the buttons.\n"
            "• Group: /new opens a table, players press “Join”, the opener presses “Start”. "
            "I send you your cards and moves privately.\n"
            "• /stop ends the table (opener or admin). /rules shows the rules.",
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
    "stop_denied": "Only the opener of the table or an admin can do that.",
    "lobby": "🃏 {game} – new table\nOpened by {opener}. Players ({min}–{max}):\n{players}",
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
    "my_cards": "🂠 My cards",
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
    """The text for ``key`` in ``lang`` (falls back to German, then to the key)."""
    table = _TEXTS.get(lang or DEFAULT_LANGUAGE, _DE)
    text = table[key] if key in table else _DE.get(key, key)
    return text.format(**values) if values else text


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
