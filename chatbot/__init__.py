"""Stammtisch's chat side: the application service, delivery, process plumbing, the shared
vocabulary (buttons, i18n, views, presenters, table options) and the adapters (Telegram,
Matrix, the console, the Mini App). See docs/architecture.md."""
