"""The visual table as a Telegram Mini App, its server side (aiohttp): ``server`` (the page,
its files and the API under ``/webapp/``, mounted by the Telegram adapter or served on a port
of its own), ``initdata`` (who a request is from, from Telegram's signed ``initData``),
``view`` (a table as one person sees it, as JSON, read through the service), ``boards`` (each
game's board), ``live`` (event streams that follow committed changes) and ``links`` (where the
Mini App opens from the chat). The page itself is ``static/`` (plain ES modules, no build).
"""
