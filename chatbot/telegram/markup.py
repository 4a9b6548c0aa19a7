"""An outbox row's text and buttons as Telegram takes them: the inline keyboard (callback
data, a Mini App's ``web_app`` button, a link, an inline query typed into the chat) and the
text with its entities (mentions and links written as Markdown links, monospace blocks as
Markdown code blocks: the messages go out as plain text with entities)."""

from __future__ import annotations

import re

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, MessageEntity, WebAppInfo

from .. import buttons


def _button(label: str, data: str) -> InlineKeyboardButton:
    if data.startswith(buttons.WEB_APP):
        return InlineKeyboardButton(label, web_app=WebAppInfo(data.removeprefix(buttons.WEB_APP)))
    if data.startswith(buttons.LINK):
        return InlineKeyboardButton(label, url=data.removeprefix(buttons.LINK))
    if data.startswith(buttons.INLINE_QUERY):
        return InlineKeyboardButton(label, switch_inline_query_current_chat=data.removeprefix(
            buttons.INLINE_QUERY))
    return InlineKeyboardButton(label, callback_data=data)


def keyboard(rows: list[list[list[str]]]) -> InlineKeyboardMarkup | None:
    if not rows:
        return None
    return InlineKeyboardMarkup([[_button(label, data) for label, data in row] for row in rows])


# A mention written as a Markdown link ``[name](tg://user?id=N)`` (and the links of private
# reminders to a supergroup's table message); or a monospace block,
# written as a Markdown code block (a line ``` before and after it: the league's tables)
_MARKUP = re.compile(r"\[([^\[\]]+)\]\((tg://user\?id=\d+|https://t\.me/c/\d+/\d+)\)"
                     r"|^```\n(.*?)\n```$", re.MULTILINE | re.DOTALL)


def _u16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def mentions(text: str) -> tuple[str, list[MessageEntity] | None]:
    """The service writes mentions as ``[name](tg://user?id=N)`` and monospace blocks as a
    Markdown code block; messages go out as plain text, so turn each mention into the bare
    name with a link entity (else the brackets would show) and each block into its lines with
    a ``pre`` entity (the fences go)."""
    out: list[str] = []
    entities: list[MessageEntity] = []
    pos = offset = 0
    for m in _MARKUP.finditer(text):
        out.append(text[pos:m.start()])
        offset += _u16(text[pos:m.start()])
        shown = m.group(1) if m.group(3) is None else m.group(3)
        entities.append(MessageEntity(MessageEntity.TEXT_LINK, offset, _u16(shown),
                                      url=m.group(2)) if m.group(3) is None else
                        MessageEntity(MessageEntity.PRE, offset, _u16(shown)))
        out.append(shown)
        offset += _u16(shown)
        pos = m.end()
    if not entities:
        return text, None
    out.append(text[pos:])
    return "".join(out), entities
