"""Files: ``sendDocument`` as strict as Telegram — a file uploaded (multipart/form-data) or sent
again by its ``file_id``, only into a chat the bot may write to (and an open forum topic), at
most 50 MB uploaded (``max_upload``), not empty, a caption of at most 1024 characters — and
the files sent, read back (``documents``): a mix-in of ``FakeBotApi``.
"""

from __future__ import annotations

import copy
import hashlib
import time
from typing import Any

from tests.fakes.bot_api.records import _Msg
from tests.fakes.bot_api.wire import ApiError, _u16len

MAX_UPLOAD = 50 * 1024 * 1024  # Telegram: a bot uploads files of up to 50 MB
MAX_CAPTION = 1024
NO_DOCUMENT = "Bad Request: there is no document in the request"
WRONG_FILE = "Bad Request: wrong file identifier/HTTP URL specified"


class _Documents:
    """The files the bot sent, by ``file_id``, with their bytes."""

    max_upload = MAX_UPLOAD  # (a test may lower it instead of uploading 50 MB)

    def _api_sendDocument(self, p: dict) -> dict:
        chat_id = self._chat_id(p)
        self._check_can_send(chat_id)
        thread = self._send_thread(chat_id, p)
        file = self._document_file(p)
        caption = p.get("caption")
        if caption is not None and _u16len(str(caption)) > MAX_CAPTION:
            raise ApiError(400, "Bad Request: message caption is too long")
        message: dict[str, Any] = {
            "message_id": self._new_message_id(chat_id), "from": self._bot_user(),
            "chat": self._chat_obj(chat_id), "date": int(time.time()),
            "document": {k: file[k] for k in ("file_id", "file_unique_id", "file_name",
                                              "mime_type", "file_size")}}
        if caption:
            message["caption"] = str(caption)
        if thread is not None:
            message["message_thread_id"] = thread
            message["is_topic_message"] = True
        self._store(_Msg(chat_id=chat_id, message_id=message["message_id"], from_bot=True,
                         date=message["date"], from_user=self._bot_user(), raw=message,
                         thread=thread))
        return copy.deepcopy(message)

    def _document_file(self, p: dict) -> dict[str, Any]:
        """The file a ``sendDocument`` names: an upload (kept), or a known ``file_id``."""
        value = p.get("document")
        if isinstance(value, str) and value.startswith("attach://"):
            value = p.get(value[len("attach://"):])
        if value is None or value == "":
            raise ApiError(400, NO_DOCUMENT)
        if isinstance(value, str):  # a file sent before, by its id (URLs are not fetched)
            known = self._files.get(value)
            if known is None:
                raise ApiError(400, WRONG_FILE)
            return known  # type: ignore[no-any-return]
        if not isinstance(value, dict) or "content" not in value:
            raise ApiError(400, NO_DOCUMENT)
        data = str(value["content"]).encode("latin-1")
        if len(data) > self.max_upload:
            raise ApiError(413, "Request Entity Too Large")
        if not data:
            raise ApiError(400, "Bad Request: file must be non-empty")
        unique = hashlib.sha256(data).hexdigest()[:16]
        file_id = f"BQACAgI{unique}{len(self._files):04d}"
        file = {"file_id": file_id, "file_unique_id": f"AgAD{unique}",
                "file_name": str(value.get("filename") or "document"),
                "mime_type": str(value.get("content_type") or "application/octet-stream"),
                "file_size": len(data), "data": data}
        self._files[file_id] = file
        return file

    def documents(self, chat_id: int) -> list[dict[str, Any]]:
        """The files the bot sent to a chat, oldest first: message id, name, MIME type, size,
        caption and the bytes (``data``)."""
        with self._lock:
            out = []
            for m in sorted(self._msgs.get(int(chat_id), {}).values(),
                            key=lambda m: m.message_id):
                doc = (m.raw or {}).get("document")
                if doc is None or m.deleted:
                    continue
                file = self._files[doc["file_id"]]
                out.append({"message_id": m.message_id, "file_name": doc["file_name"],
                            "mime_type": doc["mime_type"], "size": doc["file_size"],
                            "caption": (m.raw or {}).get("caption"), "data": file["data"]})
            return out
