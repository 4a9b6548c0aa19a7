"""Process plumbing shared by the adapters: the configuration (``config``), building the
service from it (``wiring``), ``/healthz`` and ``/metrics`` (``health``, ``metrics``), one
leader among processes (``leadership``), the heap kept still for the garbage collector
(``heap``), and secrets masked in every log line (``redact``)."""
