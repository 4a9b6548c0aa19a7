"""Message text and keyboards as Telegram checks them: the HTML parse mode (plain text plus
entities with UTF-16 offsets) and inline keyboard validation.
"""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any

from tests.fakes.bot_api.wire import _BUTTON_ACTIONS, ApiError, _u16len

# --------------------------------------------------------------------------------------------
# HTML parse mode

_HTML_TAGS = {
    "b": "bold",
    "strong": "bold",
    "i": "italic",
    "em": "italic",
    "u": "underline",
    "ins": "underline",
    "s": "strikethrough",
    "strike": "strikethrough",
    "del": "strikethrough",
    "tg-spoiler": "spoiler",
    "span": "spoiler",
    "a": "text_link",
    "code": "code",
    "pre": "pre",
    "blockquote": "blockquote",
    "tg-emoji": "custom_emoji",
}


class _TelegramHtml(HTMLParser):
    def __init__(self, raw: str):
        super().__init__(convert_charrefs=True)
        self.raw = raw
        self.lines = raw.splitlines(keepends=True)
        self.parts: list[str] = []
        self.pos = 0
        self.stack: list[tuple[str, str, int, dict]] = []
        self.entities: list[dict] = []

    def _offset(self) -> int:
        line, col = self.getpos()
        return (
            len("".join(self.lines[: line - 1]).encode()) + len(self.lines[line - 1][:col].encode())
            if self.lines
            else 0
        )

    def _fail(self, msg: str):
        raise ApiError(400, f"Bad Request: can't parse entities: {msg}")

    def handle_starttag(self, tag, attrs):
        etype = _HTML_TAGS.get(tag)
        attrd = {k: (v or "") for k, v in attrs}
        if etype is None:
            self._fail(f'Unsupported start tag "{tag}" at byte offset {self._offset()}')
        if tag == "span" and attrd.get("class") != "tg-spoiler":
            self._fail(f'Tag "span" must have class "tg-spoiler" at byte offset {self._offset()}')
        self.stack.append((tag, etype, self.pos, attrd))

    def handle_endtag(self, tag):
        if not self.stack:
            self._fail(f"Unexpected end tag at byte offset {self._offset()}")
        open_tag, etype, start, attrs = self.stack.pop()
        if open_tag != tag:
            self._fail(
                f'Unmatched end tag at byte offset {self._offset()}, expected "</{open_tag}>", '
                f'found "</{tag}>"'
            )
        length = self.pos - start
        if length <= 0:
            return
        entity: dict[str, Any] = {"type": etype, "offset": start, "length": length}
        if etype == "text_link":
            if not attrs.get("href"):
                return
            entity["url"] = attrs["href"]
        elif etype == "custom_emoji":
            entity["custom_emoji_id"] = attrs.get("emoji-id", "")
        elif etype == "blockquote" and "expandable" in attrs:
            entity["type"] = "expandable_blockquote"
        self.entities.append(entity)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        self.handle_endtag(tag)

    def handle_data(self, data):
        self.parts.append(data)
        self.pos += _u16len(data)

    def result(self) -> tuple[str, list[dict] | None]:
        self.feed(self.raw)
        self.close()
        if self.stack:
            self._fail(f'Can\'t find end tag corresponding to start tag "{self.stack[-1][0]}"')
        self.entities.sort(key=lambda e: (e["offset"], -e["length"]))
        return "".join(self.parts), (self.entities or None)


def parse_html(raw: str) -> tuple[str, list[dict] | None]:
    """Telegram-like HTML parsing: returns (plain text, entities or None); raises ApiError."""
    return _TelegramHtml(raw).result()


def _inline(markup: Any) -> dict | None:
    """The inline keyboard of a reply_markup, or None (empty keyboards count as none)."""
    if isinstance(markup, dict):
        kb = markup.get("inline_keyboard")
        if isinstance(kb, list) and any(kb):
            return markup
    return None


def _check_markup(markup: Any) -> dict | None:
    if markup is None or markup == "":
        return None
    if not isinstance(markup, dict):
        raise ApiError(400, "Bad Request: can't parse reply keyboard markup JSON object")
    if "inline_keyboard" in markup:
        kb = markup["inline_keyboard"]
        if not isinstance(kb, list) or not all(isinstance(row, list) for row in kb):
            raise ApiError(
                400,
                'Bad Request: field "inline_keyboard" of the InlineKeyboardMarkup must be an '
                "Array of Arrays",
            )
        for row in kb:
            for button in row:
                if not isinstance(button, dict) or not isinstance(button.get("text"), str):
                    raise ApiError(
                        400,
                        "Bad Request: can't parse inline keyboard button: "
                        'Field "text" must be of type String',
                    )
                if not any(k in button for k in _BUTTON_ACTIONS):
                    raise ApiError(
                        400,
                        "Bad Request: can't parse inline keyboard button: "
                        "Text buttons are unallowed in the inline keyboard",
                    )
                data = button.get("callback_data")
                if data is not None and not 1 <= len(str(data).encode()) <= 64:
                    raise ApiError(400, "Bad Request: BUTTON_DATA_INVALID")
    return markup


def _button_data(markup: Any) -> list[str]:
    kb = _inline(markup)
    if not kb:
        return []
    return [
        b["callback_data"] for row in kb["inline_keyboard"] for b in row if "callback_data" in b
    ]
