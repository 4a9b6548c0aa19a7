"""``/reminders`` (``/erinnerungen``): a person's turn reminders, in their private chat —
on, only the last one, off; their quiet hours; their time zone, by a button or typed
(``/reminders zone Europe/Vienna``: any time zone by its name or city; ``core.quiet_hours``
says what they mean for the turn clock)."""

from __future__ import annotations

from storage.models import Chat, Player

from ... import buttons
from ...i18n import N_, register, tr
from ..core import outgoing, quiet_hours
from ..core.api import Outcome, Refusal, UserRef
from ..core.transaction import Ctx

register({
    "rem.title": N_(
        "⏰ Turn reminders (for turn clocks of 10 minutes and more)\nNow: {setting}\n"
        "Quiet hours: {quiet} ({zone})\nIn quiet hours no reminder comes; a clock of 12 hours "
        "or more never runs out in them."),
    "rem.on": N_("On: at my turn and when a quarter is left"),
    "rem.last": N_("Only when a quarter is left"),
    "rem.off": N_("Off"),
    "rem.quiet": N_("{start}–{end}"),
    "rem.no_quiet": N_("none"),
    "rem.saved": N_("Saved."),
    "rem.zone_bad": N_("I don't know the time zone “{zone}”. Examples: /reminders zone "
                       "Europe/Vienna · /reminders zone London · /reminders zone New York"),
})
ZONE_WORDS = ("zone", "zeitzone", "timezone", "tz")
SETTING_KEYS = {quiet_hours.ON: "rem.on", quiet_hours.LAST: "rem.last",
                quiet_hours.OFF: "rem.off"}


def reminders(ctx: Ctx, chat: Chat, player: Player, user: UserRef, args: str) -> Outcome:
    """``/reminders``: the person's settings, as buttons that change them;
    ``/reminders zone <zone>``: their time zone (then the settings as they are now)."""
    word, _, rest = args.strip().partition(" ")
    if word.casefold() in ZONE_WORDS and rest.strip():
        zone = quiet_hours.zone_named(rest)
        if zone is None:
            raise Refusal(tr(ctx.lang, "rem.zone_bad", zone=rest.strip()[:40]), alert=False)
        player.time_zone = zone
        _show_settings(ctx, chat, player, fresh=True)
        return Outcome(tr(ctx.lang, "rem.saved"))
    _show_settings(ctx, chat, player, fresh=True)
    return Outcome(None)


def _quiet_text(ctx: Ctx, start: int, end: int) -> str:
    if start == end:
        return tr(ctx.lang, "rem.no_quiet")
    return tr(ctx.lang, "rem.quiet", start=f"{start // 60:02d}:{start % 60:02d}",
              end=f"{end // 60:02d}:{end % 60:02d}")


def _show_settings(ctx: Ctx, chat: Chat, player: Player, fresh: bool) -> None:
    zone = quiet_hours.zone_of(player, ctx.lang).key
    text = tr(ctx.lang, "rem.title", setting=tr(ctx.lang, SETTING_KEYS.get(
        player.reminders, "rem.on")), quiet=_quiet_text(ctx, player.quiet_from, player.quiet_to),
        zone=zone)
    mark = "✅ "
    rows = [[(("" if player.reminders != s else mark) + tr(ctx.lang, key),
              buttons.encode(0, 0, f"rem.{s}"))] for s, key in SETTING_KEYS.items()]
    hours = [(("" if (player.quiet_from, player.quiet_to) != q else mark)
              + _quiet_text(ctx, *q), buttons.encode(0, 0, f"rem.q.{i}"))
             for i, q in enumerate(quiet_hours.QUIET_CHOICES)]
    zones = [(("" if zone != z else mark) + z.rpartition("/")[2].replace("_", " "),
              buttons.encode(0, 0, f"rem.z.{i}")) for i, z in enumerate(quiet_hours.ZONES)]
    rows += [hours[:3], hours[3:]]
    rows += [zones[i:i + 3] for i in range(0, len(zones), 3)]
    outgoing.say(ctx, chat, text, rows, slot="reminders", fresh=fresh)


def reminders_press(ctx: Ctx, chat: Chat, player: Player, user: UserRef,
                    code: str) -> Outcome:
    """A button under ``/reminders``: ``rem.<on|last|off>``, ``rem.q.<i>``, ``rem.z.<i>``."""
    if chat.kind != "private":
        raise Refusal(tr(ctx.lang, "games.private_only"), alert=False)
    parts = code.split(".")
    if len(parts) == 2 and parts[1] in quiet_hours.SETTINGS:
        player.reminders = parts[1]
    elif len(parts) == 3 and parts[1] in ("q", "z") and parts[2].isascii() \
            and parts[2].isdigit() and len(parts[2]) < 3:
        i = int(parts[2])
        if parts[1] == "q" and i < len(quiet_hours.QUIET_CHOICES):
            player.quiet_from, player.quiet_to = quiet_hours.QUIET_CHOICES[i]
        elif parts[1] == "z" and i < len(quiet_hours.ZONES):
            player.time_zone = quiet_hours.ZONES[i]
        else:
            raise Refusal(tr(ctx.lang, "unknown_button"))
    else:
        raise Refusal(tr(ctx.lang, "unknown_button"))
    _show_settings(ctx, chat, player, fresh=False)
    return Outcome(tr(ctx.lang, "rem.saved"))
