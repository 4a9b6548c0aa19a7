"""The service's core: what every table needs. Its modules form a ladder, each importing
only rungs below it (kept by an import-linter contract in ``pyproject.toml``), bottom to top:

1. ``api`` (what goes in and out), ``events`` (the domain events the core publishes),
   ``flood`` (the per-person input rate), ``quiet_hours`` (when a person may be reminded),
   ``typed_names`` (game and level names as people type them)
2. ``transaction`` (an input's transaction, its queued rows, the update-id check),
   ``registry`` (every feature's commands, buttons, steps and deadlines, declared once),
   ``cpu`` (deciding CPU moves, the thinking pool)
3. ``records`` (the rows an input works on: chats, people, tables, seats; a table's machine,
   options, version and move log), then ``languages`` (the language of each chat's and
   person's messages, resolved once per input), then ``mini_app`` (the Mini App's buttons
   under the chat's messages)
4. ``outgoing`` (views and announcements into the outbox), ``queries`` (reading tables
   outside an input)
5. ``turn_clock`` (a table's next deadline, the turn's reminders), ``history`` (the round's
   log on request), ``ticking`` (``Service.tick``: what is due)
6. ``play`` (moves, rounds, the result, stopping; CPU turns and chaining)
7. ``tables`` (opening tables), then ``menus`` (the game menu) and ``seating`` (leaving, CPU
   fill, rematch, resigning), then ``lobby`` (lobby and table buttons)
8. ``commands`` (the core's commands), ``basics`` (the core declared as a feature)
9. ``router`` (where a decoded press goes), ``deadlines`` (firing a table's deadline once),
   ``reads`` (what the service answers without changing anything)
10. ``facade`` (the core ``Service``)

The core imports no room (``evening``, ``solo``, ``long_games``, ``stats``): it publishes
events and looks up what the rooms declared in the registry.
"""
