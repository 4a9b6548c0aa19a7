"""The text catalogs, managed with Babel: ``stammtisch-texts extract|update|compile|init``.

- ``extract``: every text the code marks (``N_``, ``NN_``, ``NP_``, ``NNP_``; see
  ``chatbot.i18n``) into ``chatbot/locale/stammtisch.pot``;
- ``update``: merge the template into each language's ``.po`` (new texts come in empty, changed
  ones marked fuzzy: both count as untranslated until someone translates them);
- ``compile``: each ``.po`` to the ``.mo`` the bot reads (committed beside it);
- ``init <lang>``: start a new language from the template.

``stammtisch-texts`` alone does extract, update and compile, in that order.
"""

from __future__ import annotations

import argparse
import contextlib
import io
from pathlib import Path

from babel.messages.frontend import CommandLineInterface
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from .i18n import DOMAIN, LOCALE_DIR

PACKAGE = Path(__file__).parent
TEMPLATE = LOCALE_DIR / f"{DOMAIN}.pot"
KEYWORDS = ["N_", "NN_:1,2", "NP_:1c,2", "NNP_:1c,2,3"]


def _babel(*args: str) -> None:
    CommandLineInterface().run(["pybabel", "-q", *args])


def extract() -> None:
    keywords = [arg for k in KEYWORDS for arg in ("-k", k)]
    root = PACKAGE.parent
    with contextlib.chdir(root):  # (locations relative to the project)
        _babel("extract", "--no-default-keywords", *keywords, "--add-location=file",
               "--sort-by-file", "--project=stammtisch", "--copyright-holder=Stammtisch",
               "--no-wrap", "-o", str(TEMPLATE), PACKAGE.name)


def catalog_files() -> list[Path]:
    """Each language's ``.po`` file."""
    return sorted(LOCALE_DIR.glob(f"*/LC_MESSAGES/{DOMAIN}.po"))


def update() -> None:
    if catalog_files():
        _babel("update", "-i", str(TEMPLATE), "-d", str(LOCALE_DIR), "-D", DOMAIN,
               "--ignore-obsolete", "--no-wrap")


def compiled(po: Path) -> bytes:
    """The ``.mo`` bytes of a ``.po`` file (fuzzy entries left out, as gettext does)."""
    with po.open("rb") as f:
        catalog = read_po(f)
    out = io.BytesIO()
    write_mo(out, catalog)
    return out.getvalue()


def compile_all() -> None:
    for po in catalog_files():
        po.with_suffix(".mo").write_bytes(compiled(po))


def init(lang: str) -> None:
    _babel("init", "-i", str(TEMPLATE), "-d", str(LOCALE_DIR), "-D", DOMAIN, "-l", lang,
           "--no-wrap")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="stammtisch-texts", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("step", nargs="?", default="all",
                        choices=["all", "extract", "update", "compile", "init"])
    parser.add_argument("lang", nargs="?", help="the new language (for init), e.g. fr")
    args = parser.parse_args(argv)
    if args.step == "init":
        if not args.lang:
            parser.error("init needs a language, e.g. stammtisch-texts init fr")
        extract()
        init(args.lang)
        return
    if args.step in ("all", "extract"):
        extract()
    if args.step in ("all", "update"):
        update()
    if args.step in ("all", "compile"):
        compile_all()


if __name__ == "__main__":
    main()
